package io.watukuy.spring.boot;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.util.Iterator;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Lets a JSON array through to {@link WatukuyEndpoint#operate} on Spring MVC (docs/spring-boot.md,
 * "Endpoint"). Boot's MVC adapter reads every Actuator POST body as a map of strings to strings, so
 * {@code {"ids": ["12"]}} would be refused with an empty 400 before the operation runs. For the
 * watukuy operation's requests only, this advice checks the body and writes an {@code ids} array as
 * its JSON text ({@code ["12"]}), which the operation parses back; a body it refuses reaches {@link
 * WatukuyEndpointFields} as a reason, answered with a 400 naming the field or the problem.
 */
@ControllerAdvice
final class WatukuyEndpointBody extends RequestBodyAdviceAdapter {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ObjectProvider<PathMappedEndpoints> endpoints;

  /**
   * An advice for the requests of the watukuy endpoint's write operation.
   *
   * @param endpoints where the endpoint's path (base path and path mapping applied) is found
   */
  WatukuyEndpointBody(ObjectProvider<PathMappedEndpoints> endpoints) {
    this.endpoints = endpoints;
  }

  @Override
  public boolean supports(
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType) {
    RequestAttributes request = RequestContextHolder.getRequestAttributes();
    PathMappedEndpoints mapped = endpoints.getIfAvailable();
    if (request == null || mapped == null) return false;
    @Nullable String path = mapped.getPath(EndpointId.of(WatukuyEndpoint.ID));
    Object pattern =
        request.getAttribute(
            HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
    return path != null && String.valueOf(pattern).equals(path + "/{poller}/{action}");
  }

  @Override
  public HttpInputMessage beforeBodyRead(
      HttpInputMessage input,
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType)
      throws IOException {
    @Nullable String query = queryParameter();
    byte[] body =
        query != null
            ? refused(WatukuyEndpointFields.queryParameter(query))
            : rewrite(input.getBody().readAllBytes());
    HttpHeaders headers = input.getHeaders();
    return new HttpInputMessage() {
      @Override
      public InputStream getBody() {
        return new ByteArrayInputStream(body);
      }

      @Override
      public HttpHeaders getHeaders() {
        return headers;
      }
    };
  }

  /**
   * A request without a body still has its query parameters refused: Boot would take them as the
   * operation's fields ({@code ?ids=6}), which the endpoint's documentation does not offer.
   */
  @Override
  public @Nullable Object handleEmptyBody(
      @Nullable Object body,
      HttpInputMessage input,
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType) {
    @Nullable String query = queryParameter();
    return query == null
        ? body
        : Map.of(WatukuyEndpointFields.REFUSED, WatukuyEndpointFields.queryParameter(query));
  }

  /** The first query parameter of the current request, or null when it has none. */
  private static @Nullable String queryParameter() {
    if (!(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes request))
      return null;
    Iterator<String> names = request.getRequest().getParameterMap().keySet().iterator();
    return names.hasNext() ? names.next() : null;
  }

  /**
   * The body with every top-level value a string, or the reason it is refused.
   *
   * <p>Refused: text that is not JSON or has more after the value, a value that is not an object, a
   * field other than {@code partition} and {@code ids} (also {@code poller} and {@code action},
   * which Boot would otherwise let override the path), a field that is JSON {@code null} (an absent
   * field means "all"; a null one is a mistake, never taken as "all"), a {@code partition} that is
   * not a string, and {@code ids} that are neither an array of strings nor one string.
   *
   * @param raw the request body
   * @return the rewritten body, or one naming the reason under {@link
   *     WatukuyEndpointFields#REFUSED}
   * @throws IOException never in practice: writing a tree that was just built
   */
  static byte[] rewrite(byte[] raw) throws IOException {
    JsonNode tree;
    try {
      tree = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(raw);
    } catch (JsonProcessingException e) {
      return refused("the body is not JSON: " + e.getOriginalMessage());
    }
    if (tree == null || !tree.isObject())
      return refused(
          "the body must be a JSON object such as {\"partition\": \"eu\", \"ids\": [\"12\"]}");
    ObjectNode out = JSON.createObjectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = tree.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      JsonNode v = e.getValue();
      if (!WatukuyEndpoint.BODY_FIELDS.contains(name))
        return refused(WatukuyEndpointFields.unknownField(name));
      if (v.isNull()) return refused(WatukuyEndpointFields.nullField(name));
      if (name.equals("partition") && !v.isTextual())
        return refused("partition must be a string, but was " + v);
      if (name.equals("ids") && !v.isTextual() && !isArrayOfStrings(v))
        return refused(WatukuyEndpointFields.IDS_SHAPE + ", but was " + v);
      out.set(name, v.isTextual() ? v : TextNode.valueOf(v.toString()));
    }
    return JSON.writeValueAsBytes(out);
  }

  private static boolean isArrayOfStrings(JsonNode v) {
    if (!v.isArray()) return false;
    for (JsonNode id : v) if (!id.isTextual()) return false;
    return true;
  }

  private static byte[] refused(String reason) throws IOException {
    return JSON.writeValueAsBytes(
        JSON.createObjectNode().put(WatukuyEndpointFields.REFUSED, reason));
  }
}
