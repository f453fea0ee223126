package io.watukuy.formats;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/**
 * Reading a body as text: the empty body ({@link io.watukuy.BodyFormat#textReader} decodes the
 * rest).
 */
final class Text {

  private Text() {}

  /** {@code body} with one byte of look-ahead, or {@code null} when it is empty. */
  static @Nullable InputStream nonEmpty(InputStream body) throws IOException {
    BufferedInputStream in = new BufferedInputStream(body);
    in.mark(1);
    if (in.read() < 0) return null;
    in.reset();
    return in;
  }
}
