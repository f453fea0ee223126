package io.watukuy.auth;

import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;

/**
 * Sends {@code Authorization: Basic BASE64(user:password)} (RFC 7617), UTF-8 encoded. The password
 * (and the encoded pair, which the redactor derives from it) is hidden wherever it would be
 * printed. Immutable and thread-safe.
 */
public final class BasicSigner implements RequestSigner {
  private final String header;
  private final String password;

  /**
   * @param user the user name; must not contain {@code :}
   * @param password the password
   * @throws IllegalArgumentException if the user is empty or contains {@code :}, or the password is
   *     empty
   */
  public BasicSigner(String user, String password) {
    if (user.isEmpty() || user.indexOf(':') >= 0) {
      throw new IllegalArgumentException("user must be non-empty and without ':'");
    }
    if (password.isEmpty()) throw new IllegalArgumentException("password is empty");
    this.password = password;
    this.header =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void sign(OutgoingRequest request) {
    request.setHeader("Authorization", header);
  }

  @Override
  public Set<String> secretValues() {
    return Set.of(password, header.substring("Basic ".length()));
  }
}
