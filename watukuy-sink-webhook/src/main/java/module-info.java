/**
 * The webhook sink: {@code WebhookSink} POSTs a poller's events, signed as Standard Webhooks says
 * (standardwebhooks.com), with the JDK's HTTP client; {@code WebhookSinkProvider} makes it from a
 * {@code sink: {type: webhook}} section (docs/sinks.md, "Webhooks").
 */
module io.watukuy.sink.webhook {
  requires transitive io.watukuy;
  requires java.net.http;
  requires static org.jspecify;

  exports io.watukuy.sink.webhook;

  provides io.watukuy.sink.SinkProvider with
      io.watukuy.sink.webhook.WebhookSinkProvider;
}
