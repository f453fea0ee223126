package io.watukuy.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The library versions this jar was built with ({@code versions.properties}, filled by Maven). */
final class Versions {
  private static final Properties VERSIONS = load();

  private Versions() {}

  static String of(String library) {
    return VERSIONS.getProperty(library, "unknown");
  }

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in = Versions.class.getResourceAsStream("versions.properties")) {
      if (in != null) p.load(in);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
