package io.watukuy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The keys that seal secrets at rest (docs/config.md, "secretKey"): AES-256-GCM with the JDK's
 * {@code javax.crypto}, under one or more keys named by an id so that keys can rotate. The first
 * key is the newest: every {@link #seal} uses it; {@link #open} reads a value sealed under any
 * listed key. An operator rotates by putting a new key first and keeping the old ones until every
 * value was written again.
 *
 * <p>A sealed value is the string {@code v1:<keyId>:<base64url(nonce ‖ ciphertext ‖ tag)>}: a fresh
 * random 96-bit nonce per seal (NIST SP 800-38D, section 8.2.2), a 128-bit tag, and as additional
 * authenticated data the format, the key id and the caller's {@code context} (the credential's
 * name), so a value copied to another name, or relabelled with another key id, fails to open.
 *
 * <p>Immutable and thread-safe. {@link #toString()} names the key ids, never a key.
 *
 * @since 0.1
 */
public final class SealingKeys {

  /** The key id of a {@code secretKey:} given as one value rather than a list. */
  public static final String DEFAULT_KEY_ID = "default";

  /** Key length in bytes: AES-256. */
  public static final int KEY_BYTES = 32;

  private static final String FORMAT = "v1";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private final Map<String, SecretKeySpec> keys; // insertion order: newest first
  private final String newest;
  private final Random random;

  private SealingKeys(Map<String, SecretKeySpec> keys, Random random) {
    this.keys = keys;
    this.newest = keys.keySet().iterator().next();
    this.random = random;
  }

  /**
   * One key under {@link #DEFAULT_KEY_ID}.
   *
   * @param field where the key was configured, for messages ({@code secretKey})
   * @param base64Key the key, 32 bytes in base64 (standard or URL-safe alphabet)
   * @return the keys
   * @throws ConfigException if the value is not base64 of exactly 32 bytes; the message names
   *     {@code field} and never quotes the value
   */
  public static SealingKeys of(String field, String base64Key) {
    return builder().key(field, DEFAULT_KEY_ID, base64Key).build();
  }

  /**
   * A builder; add the newest key first.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The id new values are sealed under.
   *
   * @return the first key's id
   */
  public String newestKeyId() {
    return newest;
  }

  /**
   * Every key id that {@link #open} accepts, newest first.
   *
   * @return the key ids
   */
  public List<String> keyIds() {
    return List.copyOf(keys.keySet());
  }

  /**
   * Seals {@code plaintext} under the newest key.
   *
   * @param context what the value belongs to (a credential's name); the same context must be given
   *     to {@link #open}
   * @param plaintext the secret
   * @return {@code v1:<keyId>:<base64url>}
   */
  public String seal(String context, String plaintext) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(plaintext, "plaintext");
    byte[] nonce = new byte[NONCE_BYTES];
    synchronized (random) {
      random.nextBytes(nonce);
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, keys.get(newest), new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(aad(newest, context));
      byte[] sealed = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[NONCE_BYTES + sealed.length];
      System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
      System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
      return FORMAT
          + ":"
          + newest
          + ":"
          + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    } catch (GeneralSecurityException e) {
      // AES-GCM is a required algorithm of every Java platform: this is a broken JDK.
      throw new IllegalStateException("AES-GCM is not available: " + e.getMessage(), e);
    }
  }

  /**
   * Opens a value {@link #seal} produced.
   *
   * @param context the context it was sealed with
   * @param sealed the sealed value
   * @return the secret
   * @throws SealedValueException if the value is not in the sealed format, names a key id this
   *     instance does not have (the message names the id and the ids it has), or fails
   *     authentication (altered, or sealed for another context or under another key)
   */
  public String open(String context, String sealed) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(sealed, "sealed");
    String[] parts = parts(sealed);
    if (parts == null)
      throw new SealedValueException(
          context + ": the stored value is not a sealed value (expected " + FORMAT + ":KEYID:...)");
    String id = parts[1];
    SecretKeySpec key = keys.get(id);
    if (key == null)
      throw new SealedValueException(
          context
              + ": the stored value is sealed under key id '"
              + id
              + "', which secretKey does not list (it has "
              + String.join(", ", keys.keySet())
              + "); add that key back to secretKey");
    byte[] raw;
    try {
      raw = Base64.getUrlDecoder().decode(parts[2]);
    } catch (IllegalArgumentException e) {
      throw new SealedValueException(context + ": the stored sealed value is not base64url");
    }
    if (raw.length < NONCE_BYTES + TAG_BITS / 8)
      throw new SealedValueException(context + ": the stored sealed value is too short");
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
      c.updateAAD(aad(id, context));
      byte[] plain = c.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES);
      return new String(plain, StandardCharsets.UTF_8);
    } catch (AEADBadTagException e) {
      throw new SealedValueException(
          context
              + ": the stored sealed value fails authentication under key id '"
              + id
              + "' (altered, sealed for another name, or the key under that id changed)");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available: " + e.getMessage(), e);
    }
  }

  /** Names the key ids, never a key. */
  @Override
  public String toString() {
    return "SealingKeys" + keys.keySet();
  }

  /**
   * The key id a sealed value names, {@code KEYID} in {@code v1:KEYID:...}, read without opening
   * it: what {@code inspect} shows of a stored credential, and which key of {@code secretKey} a
   * value needs.
   *
   * @param sealed a value {@link #seal} produced, or any other stored text
   * @return the key id, or null when the value is not in the sealed format or names no key id (a
   *     row some other writer made)
   * @since 0.3
   */
  public static @Nullable String keyId(String sealed) {
    String[] parts = parts(sealed);
    return parts == null || parts[1].isEmpty() ? null : parts[1];
  }

  /** {@code v1}, the key id and the payload of a sealed value; null when not in that format. */
  private static String @Nullable [] parts(String sealed) {
    String[] parts = sealed.split(":", 3);
    return parts.length == 3 && parts[0].equals(FORMAT) ? parts : null;
  }

  private static byte[] aad(String keyId, String context) {
    return (FORMAT + ":" + keyId + ":" + context).getBytes(StandardCharsets.UTF_8);
  }

  /** A stored value that cannot be opened: not sealed, an unknown key id, or altered. */
  public static final class SealedValueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SealedValueException(String message) {
      super(message);
    }
  }

  /** Builds {@link SealingKeys}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
    private Random random = new SecureRandom();

    private Builder() {}

    /**
     * Adds a key; the first added is the newest, used for every new seal.
     *
     * @param field where the key was configured, for messages ({@code secretKey[1].key})
     * @param id the key id: 1 to 64 of {@code A-Z a-z 0-9 . _ -}
     * @param base64Key 32 bytes in base64 (standard or URL-safe alphabet, padding optional)
     * @return this builder
     * @throws ConfigException if the id is malformed or repeated, or the key is not base64 of
     *     exactly 32 bytes; the message names {@code field} and never quotes the key
     */
    public Builder key(String field, String id, String base64Key) {
      Objects.requireNonNull(base64Key, field);
      if (id == null || !KEY_ID.matcher(id).matches())
        throw new ConfigException(
            field + ": key id '" + id + "' must be 1 to 64 of A-Z a-z 0-9 . _ -");
      if (keys.containsKey(id))
        throw new ConfigException(field + ": key id '" + id + "' is listed twice");
      byte[] raw;
      String s = base64Key.strip();
      try {
        raw =
            s.indexOf('-') >= 0 || s.indexOf('_') >= 0
                ? Base64.getUrlDecoder().decode(s)
                : Base64.getDecoder().decode(s);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            field + " must be " + KEY_BYTES + " bytes in base64 (AES-256), but is not base64");
      }
      if (raw.length != KEY_BYTES)
        throw new ConfigException(
            field
                + " must be "
                + KEY_BYTES
                + " bytes in base64 (AES-256), but was "
                + raw.length
                + " bytes; make one with: openssl rand -base64 32");
      keys.put(id, new SecretKeySpec(raw, "AES"));
      return this;
    }

    /**
     * The source of the nonces. Default a {@link SecureRandom}; tests pass a seeded one.
     *
     * @param random the nonce source
     * @return this builder
     */
    public Builder random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The keys.
     *
     * @return the keys, newest first
     * @throws ConfigException if no key was added
     */
    public SealingKeys build() {
      if (keys.isEmpty()) throw new ConfigException("secretKey lists no key");
      return new SealingKeys(new LinkedHashMap<>(keys), random);
    }
  }
}
