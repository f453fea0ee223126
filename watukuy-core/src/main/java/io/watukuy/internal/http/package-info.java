/**
 * The HTTP helper behind {@code ctx.http()}: {@link io.watukuy.internal.http.DefaultHttp} sends
 * requests with the JDK's {@link java.net.http.HttpClient}, makes GETs conditional with the
 * validators the engine stores per URL, turns a trusted 304 into {@link
 * io.watukuy.internal.http.NotModified}, reads {@code Retry-After} and rate-limit fields for the
 * scheduler, and hides credentials in every message with {@link io.watukuy.internal.http.Redactor}.
 * The engine supplies an {@link io.watukuy.internal.http.HttpScope} per fetch. Internal: not part
 * of the public API and may change without notice.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.internal.http;
