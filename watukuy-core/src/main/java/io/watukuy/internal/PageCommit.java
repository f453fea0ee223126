package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.EventType;
import io.watukuy.HttpResult;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Retain;
import io.watukuy.ScheduleState;
import io.watukuy.internal.cursor.Step;
import io.watukuy.internal.diff.CanonicalizationException;
import io.watukuy.internal.diff.EventIds;
import io.watukuy.internal.diff.Sha256;
import io.watukuy.internal.http.Redactor;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The page's diff and commit (docs/architecture.md, "The poll cycle", steps 3 and 4): the page's
 * items against the stored versions and hashes, the events, upserts, deletes and parked invalid
 * items of one page written with the cursor in one fenced transaction, then the page's events
 * handed to delivery; after a completed full listing, the deleted events of what it did not list.
 * The only stage that writes items and events, kept apart from the page loop so that the commit
 * protocol (what one transaction holds, the sequences it assigns) is read whole in one place. One
 * per poller; holds no state of a run.
 */
final class PageCommit {
  private static final Logger log = LoggerFactory.getLogger(PageCommit.class);
  private static final int IDENTITY_BATCH = 1000;

  private final CycleContext cx;
  private final Poller<Object> poller;
  // The reason of a parked row is stored (and backed up): a problem that quotes a credential is
  // parked hidden. The item itself is kept as the vendor sent it, for a retry.
  private final Redactor redactor;

  PageCommit(CycleContext cx, Poller<Object> poller) {
    this.cx = cx;
    this.redactor = Redactor.of(cx.secrets());
    this.poller = poller;
  }

  /** Diffs one page and commits cursor, rows, events and parked items in one transaction. */
  void page(KeyRun run, LaneSpec spec, Page<Object> page, Step<Object> step, int pageNo)
      throws InterruptedException {
    Instant now = cx.time().now();
    // Duplicate identities in one page: the last occurrence wins, one event, and a warning, since
    // an API that lists an item twice may have meant two items (docs/architecture.md, "One poll's
    // path").
    LinkedHashMap<String, ItemView> latest = new LinkedHashMap<>();
    List<ParkedRow> parked = new ArrayList<>();
    String repeated = null;
    int repeats = 0;
    for (ItemView v : step.kept()) {
      if (v.noIdentity) {
        parked.add(invalid(v, v.problems, now, pageNo, "IdentityError"));
        continue;
      }
      if (latest.remove(v.identity) != null) {
        if (repeated == null) repeated = v.identity;
        repeats++;
      }
      latest.put(v.identity, v);
    }
    if (repeated != null)
      log.warn(
          "{}: page {}: identity '{}' is listed more than once{}; the last copy counts",
          Who.key(run.key),
          pageNo,
          repeated,
          repeats > 1 ? " (" + repeats + " repeated items in this page)" : "");
    for (Iterator<ItemView> it = latest.values().iterator(); it.hasNext(); ) {
      ItemView v = it.next();
      if (v.problems != null) {
        it.remove();
        parked.add(
            invalid(
                v, v.problems, now, pageNo, v.oversize > 0 ? "ItemTooLarge" : "ValidationError"));
      }
    }
    if (!parked.isEmpty())
      log.warn(
          "{}: page {}: {} item(s) parked as invalid, the first because {}; watukuy parked list"
              + " shows them",
          Who.key(run.key),
          pageNo,
          parked.size(),
          firstProblem(step.kept()));
    Set<String> lookups = new HashSet<>(latest.keySet());
    lookups.addAll(page.tombstones());
    Map<String, ItemRow> stored =
        lookups.isEmpty() ? Map.of() : cx.store().loadVersions(run.key, lookups);

    Batch batch = new Batch(run, now);
    for (ItemView v : latest.values()) {
      ItemRow row = stored.get(v.identity);
      if (v.tombstone) {
        if (row != null) batch.delete(row);
        continue;
      }
      if (row != null && v.version != null && v.version.equals(row.version())) {
        if (reemits(run, spec, row))
          batch.change(EventType.UPDATED, v, row.hash(), row); // backfill force re-emits
        continue; // unchanged, no hash
      }
      String hash;
      try {
        hash = v.hash();
      } catch (CanonicalizationException e) {
        throw run.bad(pageNo, v.index(), canonicalizationProblem(run, e), e);
      }
      if (row != null && hash.equals(row.hash())) {
        if (reemits(run, spec, row)) batch.change(EventType.UPDATED, v, hash, row);
        else if (v.version != null && !v.version.equals(row.version()))
          batch.upserts.add(itemRow(v, hash, now));
        continue;
      }
      batch.change(row == null ? EventType.CREATED : EventType.UPDATED, v, hash, row);
    }
    for (String identity : page.tombstones()) {
      ItemRow row = stored.get(identity);
      if (row != null && !latest.containsKey(identity)) batch.delete(row);
    }
    boolean cursorMoved = false;
    if (spec.cursorKey() != null) {
      String before = run.cursors.get(spec.cursorKey());
      String after = spec.cursor().encode(step.next());
      cursorMoved = !Objects.equals(before, after);
      if (after == null) run.cursors.remove(spec.cursorKey());
      else run.cursors.put(spec.cursorKey(), after);
    }
    if (!cursorMoved && batch.isEmpty() && parked.isEmpty() && run.state != null) return;
    commit(run, batch, parked);
  }

  private static String firstProblem(List<ItemView> views) {
    for (ItemView v : views) if (v.problems != null) return String.join("; ", v.problems);
    return "?";
  }

  /**
   * Whether a forced backfill re-emits this known, unchanged item: once per backfill, since a
   * second event with the same id could not be told from a redelivery. Not when this run re-emitted
   * it already (an inclusive filter lists the watermark's item again on the next page), nor when
   * its row was written after the backfill was asked for (an earlier cycle of this backfill
   * re-emitted it when the page cap split the backfill, or the live lane emitted it).
   */
  private static boolean reemits(KeyRun run, LaneSpec spec, ItemRow row) {
    if (!spec.force()) return false;
    Instant since = run.backfill == null ? null : run.backfill.startedAt();
    if (since != null && row.seenAt().isAfter(since)) return false;
    return run.reemitted.add(row.identity());
  }

  /**
   * After a completed, consistent full listing: deleted events for stored identities not listed,
   * unless the delete guard holds them (docs/operations.md, "False deletes"): more than {@code
   * deletes.minCount} and more than {@code deletes.maxRatio} of the stored items missing at once is
   * more likely an API glitch (an empty or partial answer that looks complete) than a purge.
   *
   * @param confirmed whether an operator released held deletes: emit them whatever the guard says
   * @return the deletes held, 0 when they were emitted
   */
  int deleteUnseen(KeyRun run, Set<String> seen, boolean confirmed) throws InterruptedException {
    List<List<String>> missingBatches = new ArrayList<>();
    long known = 0;
    int missingCount = 0;
    try (Stream<List<String>> batches = cx.store().streamIdentities(run.key, IDENTITY_BATCH)) {
      Iterator<List<String>> it = batches.iterator();
      while (it.hasNext()) {
        List<String> ids = it.next();
        known += ids.size();
        List<String> missing = new ArrayList<>();
        for (String id : ids) if (!seen.contains(id)) missing.add(id);
        if (!missing.isEmpty()) missingBatches.add(missing);
        missingCount += missing.size();
      }
    }
    if (!confirmed
        && missingCount > poller.deleteGuardMinCount()
        && missingCount > poller.deleteGuardMaxRatio() * known) {
      log.warn(
          "{}: {} of {} stored items are missing from a complete listing, more than the delete"
              + " guard lets through (minCount {}, maxRatio {}): deletes held",
          Who.key(run.key),
          missingCount,
          known,
          poller.deleteGuardMinCount(),
          poller.deleteGuardMaxRatio());
      return missingCount;
    }
    for (List<String> missing : missingBatches) {
      Map<String, ItemRow> rows = cx.store().loadVersions(run.key, missing);
      Batch batch = new Batch(run, cx.time().now());
      for (String id : missing) {
        ItemRow row = rows.get(id);
        if (row != null) batch.delete(row);
      }
      if (!batch.isEmpty()) commit(run, batch, List.of());
    }
    return 0;
  }

  /**
   * What cannot be canonicalized, where in the item, and the request the page came from: the reader
   * must find the vendor's record, and a number out of the double range is read as Infinity, a word
   * the vendor's body never had.
   */
  private static String canonicalizationProblem(KeyRun run, CanonicalizationException e) {
    String problem = "cannot be canonicalized (RFC 8785): " + e.getMessage();
    if (e.getMessage() != null && e.getMessage().endsWith("Infinity cannot be canonicalized")) {
      problem +=
          " (a JSON number out of the IEEE-754 double range, such as 1e400, reads as Infinity)";
    }
    HttpResult from = run.lastResponse;
    return from == null
        ? problem
        : problem
            + "; page from "
            + from.method()
            + " "
            + from.url()
            + " (HTTP "
            + from.status()
            + ")";
  }

  private ParkedRow invalid(
      ItemView v, List<String> problems, Instant now, int pageNo, String name) {
    ObjectNode error = Json.MAPPER.createObjectNode();
    error.put("name", name);
    List<String> shown = problems.stream().map(redactor::message).toList();
    error.put("message", String.join("; ", shown));
    error.put("page", pageNo);
    error.put("index", v.index());
    error.set("problems", Json.MAPPER.valueToTree(shown));
    // An item over maxItemSize is kept out of the store: writing it is what it must not cost.
    String itemJson = v.oversize > 0 ? null : v.json.toString();
    // Deterministic, so the same invalid item seen again replaces its parked row.
    String basis = itemJson != null ? itemJson : "maxItemSize " + v.oversize;
    String id = "invalid-" + Sha256.hex(v.identity + "\n" + basis).substring(0, 16);
    return new ParkedRow(
        id,
        ParkedKind.INVALID,
        null,
        null,
        v.orderingKey,
        null,
        itemJson,
        error.toString(),
        0,
        now,
        null);
  }

  private ItemRow itemRow(ItemView v, String hash, Instant now) {
    String payload = poller.retain() == Retain.PAYLOAD ? v.json.toString() : null;
    return new ItemRow(
        v.identity, v.version, hash, poller.schemaVersion(), payload, v.orderingKey, now);
  }

  private void commit(KeyRun run, Batch batch, List<ParkedRow> parked) throws InterruptedException {
    StatePatch patch =
        new StatePatch(
            Map.copyOf(run.cursors),
            run.state == null ? ScheduleState.initial(poller.schedule().min().toMillis()) : null,
            poller.schemaVersion(),
            run.lastSequence);
    CommitBatch commit =
        new CommitBatch(
            patch, batch.upserts, batch.deletes, batch.events, poller.log().enabled(), parked);
    cx.store().commitPoll(run.key, run.keeper.lease(), commit, batch.now);
    if (run.state == null) run.state = PollerState.create(patch, batch.now);
    run.committed += batch.events.size();
    run.parked += parked.size();
    for (ParkedRow p : parked) cx.listener().onParked(run.key, p);
    Lane lane = run.spec == null ? Lane.LIVE : run.spec.lane();
    batch.counts.forEach((type, n) -> cx.listener().onEvents(run.key, lane, type, n));
    if (run.cycle != null && !batch.events.isEmpty())
      cx.listener()
          .onCommit(
              run.cycle,
              batch.events.get(0).sequence(),
              batch.events.get(batch.events.size() - 1).sequence());
    run.keeper.renew();
    Delivery delivery = run.delivery;
    if (delivery != null && !batch.events.isEmpty()) {
      delivery.fresh = batch.fresh;
      try {
        cx.dispatcher().deliver(delivery, batch.events);
      } finally {
        delivery.fresh = FreshEvents.NONE;
        batch.fresh.clear();
      }
    }
  }

  /** The events, upserts and deletes of one commit, with sequences assigned in order. */
  private final class Batch {
    final KeyRun run;
    final Instant now;
    final List<ItemRow> upserts = new ArrayList<>();
    final List<String> deletes = new ArrayList<>();
    final List<OutboxRow> events = new ArrayList<>();

    /**
     * How many of {@link #events} have each type, for {@link io.watukuy.WatukuyListener#onEvents}.
     */
    final java.util.EnumMap<EventType, Integer> counts = new java.util.EnumMap<>(EventType.class);

    /** The envelopes of {@link #events}, for their first delivery; none without a handler. */
    final FreshEvents fresh;

    Batch(KeyRun run, Instant now) {
      this.run = run;
      this.now = now;
      this.fresh = run.delivery == null ? FreshEvents.NONE : FreshEvents.forCommit();
    }

    boolean isEmpty() {
      return upserts.isEmpty() && deletes.isEmpty() && events.isEmpty();
    }

    void change(EventType type, ItemView v, String hash, @Nullable ItemRow previous) {
      String versionOrHash = v.version != null ? v.version : hash;
      JsonNode prior =
          previous != null && previous.payload() != null && poller.retain() == Retain.PAYLOAD
              ? Json.tree(previous.payload())
              : null;
      event(type, v.identity, v.orderingKey, versionOrHash, hash, v.json, prior);
      upserts.add(itemRow(v, hash, now));
    }

    void delete(ItemRow row) {
      JsonNode last =
          row.payload() != null && poller.retain() == Retain.PAYLOAD
              ? Json.tree(row.payload())
              : null;
      event(
          EventType.DELETED,
          row.identity(),
          row.orderingKey(),
          row.versionOrHash(),
          row.hash(),
          last,
          // A tree of its own: the first delivery hands the trees themselves to the handler.
          last == null ? null : last.deepCopy());
      deletes.add(row.identity());
    }

    private void event(
        EventType type,
        String identity,
        String orderingKey,
        String versionOrHash,
        String hash,
        @Nullable JsonNode data,
        @Nullable JsonNode previous) {
      long seq = ++run.lastSequence;
      counts.merge(type, 1, Integer::sum);
      String id =
          EventIds.eventId(
              poller.name(),
              run.key.partition(),
              identity,
              versionOrHash,
              poller.schemaVersion(),
              type.wire());
      ObjectNode envelope =
          Envelope.of(
              id,
              type,
              poller.name(),
              run.key.partition(),
              identity,
              orderingKey,
              versionOrHash,
              hash,
              poller.schemaVersion(),
              run.spec == null ? Lane.LIVE : run.spec.lane(),
              seq,
              now,
              data,
              previous);
      OutboxRow row = OutboxRow.pending(seq, id, orderingKey, envelope.toString(), now);
      events.add(row);
      if (fresh != FreshEvents.NONE) fresh.add(row, envelope, now.truncatedTo(ChronoUnit.MILLIS));
    }
  }
}
