package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code validate} warns about in {@code auth:} and {@code auths:} (docs/config.md, "auth"),
 * as {@code watukuy: warning: FILE:LINE: ...}: a credential written into the file itself instead of
 * {@code ${ENV}} or {@code ${file:PATH}} (the file is committed, copied and mailed; the variable is
 * not), and a named auth no poller uses (a typo in a poller's {@code auth:} would have failed, so
 * this is a leftover, or a poller that lost its auth), and a refresh token seed that cannot be read
 * (unset variable, missing file: only an empty store needs it). Warnings, not errors: they run.
 * Reads the file again, since the checked config keeps no YAML positions for auths.
 */
final class AuthWarnings {
  private AuthWarnings() {}

  /** The keys of an auth that hold a credential (AuthConfig reads them with {@code secret()}). */
  static final List<String> CREDENTIALS =
      List.of(
          "token", "password", "value", "clientSecret", "secret", "privateKey", "serviceAccount");

  /** One line per finding, in file order, from the tree the config was read from. */
  static List<String> of(CliConfig config) {
    YamlTree tree = config.tree();
    List<String> out = new ArrayList<>();
    JsonNode auths = tree.root().path("auths");
    Set<String> used = new LinkedHashSet<>();
    JsonNode pollers = tree.root().path("pollers");
    for (int i = 0; i < pollers.size(); i++) {
      JsonNode auth = pollers.get(i).path("auth");
      if (auth.isTextual()) used.add(auth.textValue());
    }
    for (Iterator<String> it = auths.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      String pointer = "/auths/" + YamlTree.escape(name);
      inline(tree, auths.get(name), pointer, "auths." + name, out);
      if (!used.contains(name)) {
        out.add(
            tree.line(pointer)
                + ": auths."
                + name
                + ": no poller uses it (a poller names it with auth: "
                + name
                + ")");
      }
    }
    for (int i = 0; i < pollers.size(); i++) {
      JsonNode auth = pollers.get(i).path("auth");
      String who = "poller " + pollers.get(i).path("name").asText("#" + (i + 1)) + ": auth";
      inline(tree, auth, "/pollers/" + i + "/auth", who, out);
    }
    List<String> lines =
        new ArrayList<>(
            out.stream().map(line -> "watukuy: warning: " + config.file() + ":" + line).toList());
    for (var auth : config.auths().entrySet()) {
      if (auth.getValue() instanceof io.watukuy.auth.RefreshTokenSigner rt
          && rt.seedUnavailable() != null) {
        lines.add(
            "watukuy: warning: "
                + rt.seedUnavailable()
                + ": fine while the store holds the credential's row (the seed only fills an empty"
                + " store); with no row, run fails until it is set or `watukuy auth set CONFIG "
                + auth.getKey()
                + "` stores a token");
      }
    }
    return lines;
  }

  private static void inline(
      YamlTree tree, JsonNode auth, String pointer, String label, List<String> out) {
    if (!auth.isObject()) return;
    for (String key : CREDENTIALS) {
      JsonNode value = auth.path(key);
      if (value.isValueNode() && !value.isNull() && !value.asText().contains("${")) {
        String at = pointer + "/" + key;
        out.add(
            tree.line(at)
                + ": "
                + label
                + "."
                + key
                + ": written in the file; read it from the environment (\"${NAME}\") or a file"
                + " (\"${file:PATH}\") so that it stays out of the config and its copies");
      }
    }
  }
}
