package io.watukuy.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.cli.ConfigReader.At;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * The method and body of a listing request (docs/config.md, "Request bodies"): {@code method: GET |
 * POST | PUT} with a JSON {@code body:}, a {@code form:} ({@code
 * application/x-www-form-urlencoded}), or a {@code graphql: {query, variables}} (a POST of {@code
 * {"query", "variables"}}). A listing POST or PUT is a read like a GET: it charges the budget, is
 * digested for stalled lanes with its body, and a failed page is fetched again after the backoff.
 */
final class RequestBody {
  static final String FORM_TYPE = "application/x-www-form-urlencoded";

  /** A GET without a body: every request of a poller that sets none of these keys. */
  static final RequestBody NONE = new RequestBody("GET", null, Map.of(), null, null);

  private final String method;
  private final @Nullable JsonTemplate json;
  private final Map<String, Template> form;
  private final @Nullable String graphQlQuery;
  private final @Nullable JsonTemplate graphQlVariables;

  private RequestBody(
      String method,
      @Nullable JsonTemplate json,
      Map<String, Template> form,
      @Nullable String graphQlQuery,
      @Nullable JsonTemplate graphQlVariables) {
    this.method = method;
    this.json = json;
    this.form = form;
    this.graphQlQuery = graphQlQuery;
    this.graphQlVariables = graphQlVariables;
  }

  /**
   * Reads {@code method}, {@code body}, {@code form} and {@code graphql} of a {@code request:}.
   *
   * @throws io.watukuy.ConfigException naming the file, line, poller, key and value of the first
   *     error: a method other than GET, POST or PUT; a body or form with GET; both body and form;
   *     graphql with body, form or a method other than POST; a variable that does not exist
   */
  static RequestBody read(At request) {
    At methodAt = request.child("method");
    At bodyAt = request.child("body");
    At formAt = request.child("form");
    At graphqlAt = request.child("graphql");
    String method = methodAt.missing() ? null : methodAt.string("").toUpperCase(Locale.ROOT);
    if (method != null && !method.equals("GET") && !method.equals("POST") && !method.equals("PUT"))
      throw methodAt.error("'" + methodAt.node.asText() + "' is not GET, POST or PUT");
    if (!graphqlAt.missing()) {
      if (!bodyAt.missing())
        throw bodyAt.error("not with graphql:, whose query and variables are the body");
      if (!formAt.missing())
        throw formAt.error("not with graphql:, whose query and variables are the body");
      if (method != null && !method.equals("POST"))
        throw methodAt.error("'" + methodAt.node.asText() + "': a graphql request is a POST");
      graphqlAt.object("query", "variables");
      At queryAt = graphqlAt.child("query");
      if (queryAt.missing()) throw graphqlAt.error("query: missing (the GraphQL document)");
      String query = queryAt.string("");
      if (query.isBlank()) throw queryAt.error("must not be empty");
      At variablesAt = graphqlAt.child("variables");
      if (!variablesAt.missing() && !variablesAt.node.isObject())
        throw variablesAt.error("must be a map of variable names to values");
      JsonTemplate variables = variablesAt.missing() ? null : JsonTemplate.read(variablesAt);
      return new RequestBody("POST", null, Map.of(), query, variables);
    }
    if (method == null) method = "GET";
    if (!bodyAt.missing() && !formAt.missing())
      throw formAt.error("not with body: a request has one body, JSON (body) or a form (form)");
    At given = bodyAt.missing() ? formAt : bodyAt;
    if (!given.missing() && method.equals("GET"))
      throw given.error(
          "needs method: POST or PUT"
              + (methodAt.missing() ? " (the method is GET when not given)" : ", not GET"));
    if (!bodyAt.missing() && !bodyAt.node.isContainerNode())
      throw bodyAt.error("must be a JSON object or list, but was " + bodyAt.node);
    JsonTemplate json = bodyAt.missing() ? null : JsonTemplate.read(bodyAt);
    Map<String, Template> form = formAt.templates();
    return new RequestBody(method, json, form, null, null);
  }

  /** {@code GET}, {@code POST} or {@code PUT}. */
  String method() {
    return method;
  }

  /** Whether the request is a GraphQL query, whose 200 responses may still carry errors. */
  boolean graphQl() {
    return graphQlQuery != null;
  }

  /** Every variable name the body (JSON, GraphQL variables or form) holds. */
  List<String> names() {
    List<String> out = new ArrayList<>();
    if (json != null) out.addAll(json.names());
    if (graphQlVariables != null) out.addAll(graphQlVariables.names());
    form.values().forEach(t -> out.addAll(t.names()));
    return out;
  }

  /** Whether the body holds {@code {{name}}}. */
  boolean uses(String name) {
    return (json != null && json.uses(name))
        || (graphQlVariables != null && graphQlVariables.uses(name))
        || form.values().stream().anyMatch(t -> t.uses(name));
  }

  /** The content type of {@link #render}'s text: JSON unless the request is a form. */
  String contentType() {
    return form.isEmpty() ? "application/json" : FORM_TYPE;
  }

  /**
   * The body of one request: JSON text, form text, or null for a GET or a POST/PUT without a body.
   */
  @Nullable String render(Map<String, @Nullable String> vars) {
    if (graphQlQuery != null) {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      o.put("query", graphQlQuery);
      if (graphQlVariables != null) o.set("variables", graphQlVariables.render(vars));
      return o.toString();
    }
    if (json != null) return json.render(vars).toString();
    if (form.isEmpty()) return null;
    StringJoiner out = new StringJoiner("&");
    form.forEach(
        (name, t) -> {
          String value = t.render(vars, v -> v, true);
          if (value != null) out.add(formEncode(name) + "=" + formEncode(value));
        });
    return out.toString();
  }

  private static String formEncode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
