package io.watukuy.formats;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackReader;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** Reading a body as text: the empty body, and a byte order mark that Java's UTF-8 keeps. */
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

  /** A reader of {@code body} in {@code charset} (UTF-8 when null), a leading U+FEFF skipped. */
  static Reader reader(InputStream body, @Nullable Charset charset) throws IOException {
    PushbackReader in =
        new PushbackReader(
            new InputStreamReader(body, charset == null ? StandardCharsets.UTF_8 : charset));
    int first = in.read();
    if (first >= 0 && first != '\uFEFF') in.unread(first);
    return in;
  }
}
