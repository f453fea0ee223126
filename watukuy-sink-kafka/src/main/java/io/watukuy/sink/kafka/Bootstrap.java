package io.watukuy.sink.kafka;

import org.jspecify.annotations.Nullable;

/**
 * The {@code bootstrap} setting's shape, checked when the config is read: a comma-separated list of
 * {@code host:port}, the port 1 to 65535. The client would refuse another value only when the sink
 * opens, in words that name neither the setting nor the sink.
 */
final class Bootstrap {
  private Bootstrap() {}

  /**
   * What is wrong with a bootstrap list.
   *
   * @param list the setting as written, e.g. {@code 127.0.0.1:9092,kafka2:9092}
   * @return why it is not a {@code host:port} list, or null when it is one
   */
  static @Nullable String problem(String list) {
    for (String server : list.split(",", -1)) {
      String s = server.trim();
      int colon = s.lastIndexOf(':');
      String host = colon < 0 ? "" : s.substring(0, colon);
      String port = colon < 0 ? "" : s.substring(colon + 1);
      if (host.isEmpty()
          || !port.matches("[0-9]{1,5}")
          || Integer.parseInt(port) < 1
          || Integer.parseInt(port) > 65535)
        return "'"
            + list
            + "' is not a host:port list: '"
            + s
            + "' needs a host and a port from 1 to 65535, e.g. 127.0.0.1:9092";
    }
    return null;
  }
}
