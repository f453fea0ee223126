package io.watukuy.effects.internal;

import io.watukuy.SealingKeys;
import io.watukuy.TimeSource;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.SubjectKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Sealed documents (docs/effects.md, "Sealed documents"): AES-256-GCM under a data key per subject,
 * the key kept in the store wrapped by the engine's {@code secretKey} ({@link SealingKeys}, context
 * = the subject), so the store holds neither a key nor a document in clear.
 *
 * <p>A sealed document is {@code v1:<keyId>:<base64url(subject)>:<base64url(nonce ‖ ciphertext ‖
 * tag)>}. The subject is in the text so a reveal finds its key; the additional authenticated data
 * binds the format, the key id and the subject, so a document relabelled with another subject or
 * key id fails to open. The plaintext is the declared type's name, a line break and the document's
 * JSON: the type is checked after opening, so a mismatch names both types.
 */
public final class SubjectSeals {
  private static final String FORMAT = "v1";
  private static final int KEY_BYTES = 32;
  private static final int KEY_ID_BYTES = 16;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  /** The document was sealed under a key that erasure destroyed: it can never be opened. */
  public static final class SubjectErased extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SubjectErased(String message) {
      super(message, null, false, false);
    }
  }

  /** An opened document: the type it was sealed as and its JSON. */
  public record Opened(String typeName, String json) {
    /** The type only: the JSON is a document in clear. */
    @Override
    public String toString() {
      return "Opened[" + typeName + "]";
    }
  }

  private final EffectStore store;
  private final TimeSource time;
  private final @Nullable SealingKeys secretKey;
  private final Random random;

  /**
   * @param secretKey the engine's top-level key, or null when none is configured (then every seal
   *     and reveal fails with a message saying so)
   * @param random the source of data keys, key ids and nonces: a {@code SecureRandom} in production
   */
  public SubjectSeals(
      EffectStore store, TimeSource time, @Nullable SealingKeys secretKey, Random random) {
    this.store = Objects.requireNonNull(store, "store");
    this.time = Objects.requireNonNull(time, "time");
    this.secretKey = secretKey;
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Seals a document's JSON under the subject's data key, making and storing the key on first use.
   *
   * @param effect the effect sealing, for messages
   * @throws IllegalStateException if no secretKey is configured, naming the effect
   * @throws IllegalArgumentException if the subject is blank
   */
  public String seal(String effect, String subject, String typeName, String json) {
    SealingKeys wrap = canSeal(effect, subject);
    SubjectKey row = store.loadSubjectKey(subject).orElseGet(() -> newKey(wrap, subject));
    byte[] key = unwrap(effect, wrap, row);
    byte[] nonce = bytes(NONCE_BYTES);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.ENCRYPT_MODE,
          new SecretKeySpec(key, "AES"),
          new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(aad(row.keyId(), subject));
      byte[] sealed = c.doFinal((typeName + "\n" + json).getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[NONCE_BYTES + sealed.length];
      System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
      System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
      return FORMAT
          + ":"
          + row.keyId()
          + ":"
          + B64.encodeToString(subject.getBytes(StandardCharsets.UTF_8))
          + ":"
          + B64.encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available: " + e.getMessage(), e);
    } finally {
      Arrays.fill(key, (byte) 0);
    }
  }

  /**
   * Opens a sealed document.
   *
   * @param effect the effect revealing, for messages
   * @param declared the type the caller declared, for messages
   * @throws SubjectErased if the subject's key was erased (the key is gone or was replaced)
   * @throws IllegalArgumentException if the text is not a sealed document
   * @throws IllegalStateException if no secretKey is configured, the secretKey cannot open the
   *     subject's key, or the document fails authentication (altered or relabelled)
   */
  public Opened open(String effect, String sealed, String declared) {
    Objects.requireNonNull(sealed, "sealed");
    String[] parts = sealed.split(":", 4);
    String subject = parts.length == 4 && parts[0].equals(FORMAT) ? subject(parts[2]) : null;
    byte[] raw = subject == null ? null : payload(parts[3]);
    if (subject == null || raw == null || raw.length < NONCE_BYTES + TAG_BITS / 8)
      throw new IllegalArgumentException(
          "effect "
              + effect
              + ": reveal as "
              + declared
              + ": the text is not a sealed document (expected "
              + FORMAT
              + ":KEYID:SUBJECT:...)");
    String keyId = parts[1];
    SealingKeys wrap = secretKey(effect);
    Optional<SubjectKey> row = store.loadSubjectKey(subject);
    if (row.isEmpty() || !row.get().keyId().equals(keyId))
      throw new SubjectErased(
          "effect "
              + effect
              + ": a sealed document's subject was erased (its key "
              + keyId
              + " is gone), so it can never be revealed as "
              + declared);
    byte[] key = unwrap(effect, wrap, row.get());
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.DECRYPT_MODE,
          new SecretKeySpec(key, "AES"),
          new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
      c.updateAAD(aad(keyId, subject));
      String plain =
          new String(c.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES), StandardCharsets.UTF_8);
      int nl = plain.indexOf('\n');
      if (nl < 0)
        throw new IllegalStateException("effect " + effect + ": a sealed document has no type");
      return new Opened(plain.substring(0, nl), plain.substring(nl + 1));
    } catch (AEADBadTagException e) {
      throw new IllegalStateException(
          "effect "
              + effect
              + ": reveal as "
              + declared
              + ": the sealed document fails authentication under key "
              + keyId
              + " (altered, or relabelled with another subject or key)");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available: " + e.getMessage(), e);
    } finally {
      Arrays.fill(key, (byte) 0);
    }
  }

  /**
   * Destroys a subject's data key: every document sealed under it becomes unreadable for good.
   *
   * @return true when a key was deleted, false when the subject had none
   */
  public boolean erase(String subject) {
    return store.eraseSubject(Objects.requireNonNull(subject, "subject"));
  }

  private SubjectKey newKey(SealingKeys wrap, String subject) {
    byte[] key = bytes(KEY_BYTES);
    try {
      String wrapped = wrap.seal(subject, Base64.getEncoder().encodeToString(key));
      String keyId = B64.encodeToString(bytes(KEY_ID_BYTES));
      // Another engine may have made one meanwhile: the stored key wins, this one is dropped.
      return store.putSubjectKeyIfAbsent(new SubjectKey(subject, keyId, wrapped, time.now()));
    } finally {
      Arrays.fill(key, (byte) 0);
    }
  }

  private static byte[] unwrap(String effect, SealingKeys wrap, SubjectKey row) {
    try {
      return Base64.getDecoder().decode(wrap.open(row.subject(), row.wrappedKey()));
    } catch (SealingKeys.SealedValueException e) {
      throw new IllegalStateException(
          "effect "
              + effect
              + ": the data key of a subject cannot be unwrapped: "
              + e.getMessage());
    }
  }

  /**
   * Checks that a seal for {@code subject} can be made, before the call whose result it seals runs:
   * a call that fired and then could not be recorded would fire again on every retry.
   *
   * @return the secretKey
   * @throws IllegalStateException if no secretKey is configured, naming the effect
   * @throws IllegalArgumentException if the subject is blank
   */
  public SealingKeys canSeal(String effect, String subject) {
    Objects.requireNonNull(subject, "subject");
    if (subject.isBlank())
      throw new IllegalArgumentException("effect " + effect + ": a seal's subject is blank");
    return secretKey(effect);
  }

  private SealingKeys secretKey(String effect) {
    if (secretKey == null)
      throw new IllegalStateException(
          "effect "
              + effect
              + ": sealed documents need a secretKey (Effects.Builder.secretKey); none is set");
    return secretKey;
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    synchronized (random) {
      random.nextBytes(b);
    }
    return b;
  }

  private static @Nullable String subject(String encoded) {
    byte[] raw = payload(encoded);
    return raw == null || raw.length == 0 ? null : new String(raw, StandardCharsets.UTF_8);
  }

  private static byte @Nullable [] payload(String encoded) {
    try {
      return Base64.getUrlDecoder().decode(encoded);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static byte[] aad(String keyId, String subject) {
    return (FORMAT + ":" + keyId + ":" + subject).getBytes(StandardCharsets.UTF_8);
  }
}
