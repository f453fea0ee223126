/**
 * The webhook sink (docs/sinks.md, "Webhooks"): {@link io.watukuy.sink.webhook.WebhookSink} POSTs
 * events signed as Standard Webhooks (standardwebhooks.com) says; {@link
 * io.watukuy.sink.webhook.WebhookSinkProvider} makes it from a {@code sink: {type: webhook}}
 * section.
 */
@NullMarked
package io.watukuy.sink.webhook;

import org.jspecify.annotations.NullMarked;
