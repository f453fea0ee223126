package io.watukuy.admin;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The dashboard's files, read from the classpath folder {@value #FOLDER} of this jar: {@code /} is
 * {@code index.html}; other paths are one file name of letters, digits, dots, dashes and
 * underscores, so no path can leave the folder.
 */
final class StaticFiles {
  static final String FOLDER = "io/watukuy/admin/dashboard/";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,100}");
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png",
          "ico", "image/x-icon",
          "json", "application/json; charset=utf-8");

  /** A file's bytes and content type. */
  record File(byte[] bytes, String type) {}

  private StaticFiles() {}

  /**
   * The file for a request path.
   *
   * @param path the URI path, starting with {@code /}
   * @return the file, or null when there is none (or the name is not a plain file name)
   */
  static @Nullable File find(String path) throws IOException {
    String name = path.equals("/") ? "index.html" : path.substring(1);
    if (!NAME.matcher(name).matches() || name.contains("..")) return null;
    int dot = name.lastIndexOf('.');
    String type = dot < 0 ? null : TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
    if (type == null) return null;
    try (InputStream in = StaticFiles.class.getResourceAsStream("/" + FOLDER + name)) {
      return in == null ? null : new File(in.readAllBytes(), type);
    }
  }
}
