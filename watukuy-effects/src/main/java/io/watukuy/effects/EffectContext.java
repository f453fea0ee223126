package io.watukuy.effects;

import io.watukuy.PollerKey;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link Arm} reaches while it runs: journaled calls, a terminal failure, a log line
 * (docs/effects.md, "The journal"). One context per invocation attempt; not for use by other
 * threads or after the arm returns.
 *
 * <p>A journaled call is looked up first: a recorded result comes back and the call does not run;
 * otherwise it runs and its result is recorded at once, on its own. The call's journal key is the
 * SHA-256 of its name, the RFC 8785 canonical JSON of its arguments (written by Jackson) and its
 * ordinal among identical calls of this attempt, so editing or reordering an arm does not confuse
 * replay: a call is found by what it is, not by where it is. Arguments are hashed, never stored;
 * the journal keeps the name and the result.
 *
 * <p>A call that completed and was recorded never runs again. A crash between a call's effect and
 * its record can repeat that one call, once; pass {@link #idempotencyKey()} (per event and call) to
 * a receiver that can deduplicate by it.
 *
 * @since 0.1
 */
public interface EffectContext {

  /**
   * A journaled call without a result.
   *
   * @since 0.1
   */
  @FunctionalInterface
  interface Action {
    /**
     * Performs the call.
     *
     * @throws Exception to fail the invocation (nothing is recorded, the call runs again on retry)
     */
    void run() throws Exception;
  }

  /**
   * Makes a journaled call, or returns its recorded result.
   *
   * @param name what the call is (kept in the journal as its label), e.g. {@code send-welcome}
   * @param args what makes the call this call: any value Jackson writes as JSON (a record, a map, a
   *     string), or {@code null}; two calls with the same name and arguments are told apart by
   *     their ordinal
   * @param resultType what the result is read back as on replay (Jackson)
   * @param call performs the call; runs at most once per recorded result
   * @param <T> the result type
   * @return the result, fresh or from the journal; {@code null} when the call returned null
   * @throws Exception whatever {@code call} threw (nothing recorded; the invocation fails and is
   *     retried)
   * @throws IllegalArgumentException if {@code args} cannot be written as canonical JSON (a NaN, a
   *     cycle), naming the call
   * @throws IllegalStateException if a recorded result cannot be read as {@code resultType}, naming
   *     the call and the type: the arm and its journal disagree, and the lane waits until they
   *     agree again
   */
  <T> @Nullable T call(
      String name, @Nullable Object args, Class<T> resultType, Callable<? extends T> call)
      throws Exception;

  /**
   * Makes a journaled call that has no result, or skips it when it was recorded.
   *
   * @param name what the call is, as for {@link #call(String, Object, Class, Callable)}
   * @param args what makes the call this call, as for {@link #call(String, Object, Class,
   *     Callable)}
   * @param action performs the call; runs at most once per recorded completion
   * @throws Exception whatever {@code action} threw (nothing recorded)
   * @throws IllegalArgumentException if {@code args} cannot be written as canonical JSON
   */
  void call(String name, @Nullable Object args, Action action) throws Exception;

  /**
   * The idempotency key of the call running now: 64 lower-case hex digits, the SHA-256 of the
   * effect's name, the source poller and partition, the event's log position and the call's journal
   * key (docs/effects.md, "The journal"). It is one per event and call: stable across retries and
   * restarts (a replay of the same position gives the same key), and different for two events that
   * make the same call. Send it to a receiver that can deduplicate, so the one repeat a crash can
   * cause is harmless; the journaled HTTP client sends it as {@code Idempotency-Key}.
   *
   * @return the key of the innermost journaled call in progress
   * @throws IllegalStateException if called outside a journaled call
   */
  String idempotencyKey();

  /**
   * Ends the invocation as a terminal failure: the position completes instead of being retried,
   * {@code terminal_skips} counts it and {@code last_terminal_error} keeps {@code reason}
   * (docs/effects.md, "Terminal failures"). Use it for an event that can never succeed.
   *
   * @param reason why, for operators; the engine's secrets are hidden in it
   * @return never returns; declared so an arm can write {@code throw ctx.fail("...")}
   * @throws TerminalFailure always
   */
  TerminalFailure fail(String reason);

  /**
   * Writes an INFO line naming the effect, source and position, with the engine's secrets ({@code
   * Effects.Builder#secrets}) hidden. Not journaled: a replay writes it again.
   *
   * @param message the text
   */
  void log(String message);

  /**
   * The effect's name.
   *
   * @return the name
   */
  String effect();

  /**
   * The key whose log the event came from.
   *
   * @return the source key
   */
  PollerKey source();

  /**
   * The event's log position.
   *
   * @return the position, positive
   */
  long position();

  /**
   * The invocation's attempt.
   *
   * @return from 1; a replay after a restart counts on
   */
  int attempt();

  // ---- sealed documents and HTTP calls (docs/effects.md, "Sealed documents", "HTTP calls") ----

  /**
   * Makes a journaled call whose result holds a subject's data, or returns its recorded result: as
   * {@link #call(String, Object, Class, Callable)}, but the journal keeps the result sealed under
   * {@code subject}'s data key and names the subject, so {@code Effects.erase(subject)} reaches the
   * journal too (docs/effects.md, "Sealed documents").
   *
   * @param name what the call is
   * @param args what makes the call this call (hashed, never stored)
   * @param resultType what the result is read back as
   * @param subject whose data the result holds (a customer id, say); non-blank
   * @param call performs the call
   * @param <T> the result type
   * @return the result, fresh or from the journal
   * @throws Exception whatever {@code call} threw (nothing recorded)
   * @throws TerminalFailure on replay, when the subject was erased: the position completes
   * @throws IllegalStateException if no {@code secretKey} is configured, or the recorded result is
   *     not a {@code resultType} (named): the lane waits until they agree
   */
  <T> @Nullable T call(
      String name,
      @Nullable Object args,
      Class<T> resultType,
      String subject,
      Callable<? extends T> call)
      throws Exception;

  /**
   * Seals a document under the subject's data key (AES-256-GCM; the key is made on first use and
   * kept in the store wrapped by the engine's {@code secretKey}). The text may be passed on or
   * stored anywhere; only {@link #reveal} opens it, and only until the subject is erased. Not
   * journaled; each seal uses a fresh nonce, so two seals of one document differ.
   *
   * @param subject whose data the document is; non-blank
   * @param document any value Jackson writes as JSON; revealed later as its own class (or a
   *     supertype of it)
   * @return {@code v1:<keyId>:<subject, base64url>:<base64url(nonce ‖ ciphertext ‖ tag)>}
   * @throws IllegalStateException if no {@code secretKey} is configured, naming the effect
   * @throws IllegalArgumentException if the subject is blank or the document cannot be written as
   *     JSON
   */
  String seal(String subject, Object document);

  /**
   * Opens a document {@link #seal} made. Not journaled: a replay reveals again, so a document whose
   * subject was erased since is never served from a journal.
   *
   * @param sealed the sealed text
   * @param type what the document was sealed as, or a supertype of it
   * @param <T> the type
   * @return the document
   * @throws TerminalFailure if the subject was erased: the position completes instead of retrying,
   *     even if the arm catches this (docs/effects.md, "Terminal failures")
   * @throws IllegalStateException if the document is not a {@code type} (the message names both
   *     types), fails authentication, or no {@code secretKey} is configured: an ordinary failure,
   *     retried under backoff
   * @throws IllegalArgumentException if {@code sealed} is not a sealed document
   */
  <T> T reveal(String sealed, Class<T> type);

  /**
   * The invocation's journaled HTTP client (docs/effects.md, "HTTP calls"). Its requests share the
   * journal rules of {@link #call}; one that names a subject ({@link EffectHttp.Request#subject})
   * keeps its response sealed as a call with a subject does.
   *
   * @return the client; its requests are journaled in this invocation
   */
  EffectHttp http();
}
