// The watukuy dashboard: reads the admin API of the server that serves this file and renders it.
// Plain DOM, no framework and no build step. Every piece of data goes into the page through
// textContent or an attribute, never as markup, so what a vendor or a handler wrote (an error
// message, an ordering key) can never become HTML. Under Content-Security-Policy default-src 'self'
// it needs nothing but this file, dashboard.css and the admin API on the same origin.
'use strict';

(() => {
  /** How often the page reads the admin API again, in milliseconds. */
  const REFRESH_MS = 5000;

  /**
   * Sent on every POST: a header a cross-site form cannot set, which the admin server requires
   * (docs/operations.md, "Admin HTTP").
   */
  const ADMIN_HEADER = 'X-Watukuy-Admin';

  /** Paths relative to the page, so the dashboard also works behind a reverse proxy's prefix. */
  const POLLERS = 'admin/pollers';
  const PARKED = 'admin/parked';
  const EFFECTS = 'admin/effects';

  /**
   * The bearer token, when the admin server asks for one (it answers 401): typed into the page's
   * form, kept in this variable only, never in storage, so it leaves with the page.
   */
  let token = null;

  let timer = null;
  let inFlight = null;
  let again = false;

  // ---- the admin API --------------------------------------------------------------------------

  /** A request to the admin API; resolves to the parsed JSON, rejects with the server's message. */
  async function request(method, path, body) {
    const init = { method, cache: 'no-store', credentials: 'same-origin', headers: {} };
    if (method !== 'GET') init.headers[ADMIN_HEADER] = '1';
    if (token) init.headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch (e) {
      // not JSON: keep the text for the message below
    }
    if (response.status === 401) askForToken();
    if (!response.ok) {
      const why = json && typeof json.error === 'string' ? json.error : text.trim();
      const error = new Error(`${method} ${path}: ${response.status} ${why || response.statusText}`);
      error.status = response.status;
      throw error;
    }
    return json;
  }

  /** The query string of a key: the partition only when the key has one. */
  function keyQuery(partition) {
    return partition ? `?partition=${encodeURIComponent(partition)}` : '';
  }

  function pollerAction(action, poller, partition) {
    return request(
      'POST',
      `${POLLERS}/${encodeURIComponent(poller)}/${action}${keyQuery(partition)}`
    );
  }

  /**
   * Retries or discards parked rows of one key: the given ids, or all of them when ids is null.
   * The body is the one the admin server documents: {poller, partition, ids} or {poller, partition,
   * all: true}; the partition is "" for an unpartitioned poller's one key.
   */
  function parkedAction(action, poller, partition, ids) {
    const body = { poller, partition };
    if (ids === null) body.all = true;
    else body.ids = ids;
    return request('POST', `${PARKED}/${action}`, body);
  }

  /**
   * Every effect with its stuck lanes, or null when the server serves none (it answers the listing
   * 404 when it was built without effects). One read per effect: the listing never holds the
   * stuck lanes (docs/effects.md, "Admin HTTP").
   */
  async function readEffects() {
    let listing;
    try {
      listing = await request('GET', EFFECTS);
    } catch (e) {
      if (e.status === 404) return null;
      throw e;
    }
    return Promise.all(
      listing.effects.map((e) => request('GET', `${EFFECTS}/${encodeURIComponent(e.name)}`))
    );
  }

  function skip(effect, position, partition) {
    return request(
      'POST',
      `${EFFECTS}/${encodeURIComponent(effect)}/skip/${position}${keyQuery(partition)}`
    );
  }

  /**
   * Makes the lane of a failed position due now (docs/effects.md, "Retry now"): after a fix, its
   * invocation runs at once instead of at its stored retry time.
   */
  function retryNow(effect, position, partition) {
    return request(
      'POST',
      `${EFFECTS}/${encodeURIComponent(effect)}/retry/${position}${keyQuery(partition)}`
    );
  }

  /** Shows the token form; a token that was refused is forgotten. */
  function askForToken() {
    token = null;
    document.getElementById('token-form').hidden = false;
  }

  function useToken(event) {
    event.preventDefault();
    const input = document.getElementById('token');
    token = input.value.trim() || null;
    input.value = '';
    document.getElementById('token-form').hidden = true;
    refresh();
  }

  // ---- formatting -----------------------------------------------------------------------------

  /** 42s, 5m 3s, 2h 10m, 3d 4h: a span of milliseconds in its two largest units. */
  function duration(ms) {
    if (ms < 0) ms = 0;
    const s = Math.floor(ms / 1000);
    if (s < 60) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60) return s % 60 ? `${m}m ${s % 60}s` : `${m}m`;
    const h = Math.floor(m / 60);
    if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
    const d = Math.floor(h / 24);
    return h % 24 ? `${d}d ${h % 24}h` : `${d}d`;
  }

  /** An instant as the server wrote it, shown in UTC to the second. */
  function instant(iso) {
    return iso.replace(/\.\d+Z$/, 'Z').replace('T', ' ');
  }

  function keyName(poller, partition) {
    return partition ? `${poller}[${partition}]` : poller;
  }

  // ---- the DOM, built from text only ----------------------------------------------------------

  function element(tag, text, className) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (className) e.className = className;
    return e;
  }

  function cell(text, className) {
    return element('td', text, className);
  }

  /** A td holding a time element: the instant, and how long ago relative to the inspection. */
  function timeCell(iso, now) {
    const td = cell(null, 'time');
    if (!iso) {
      td.textContent = '—';
      return td;
    }
    const t = element('time', `${duration(Date.parse(now) - Date.parse(iso))} ago`);
    t.dateTime = iso;
    t.title = instant(iso);
    td.append(t);
    return td;
  }

  /**
   * A button that runs an action, then refreshes the page. Its label names the key, so that a
   * screen reader says "Pause orders[eu]" where the eye sees "Pause" in the orders[eu] row.
   */
  function button(text, label, action, className) {
    const b = element('button', text, className);
    b.type = 'button';
    b.setAttribute('aria-label', label);
    b.addEventListener('click', () => act(b, label, action));
    return b;
  }

  async function act(b, label, action) {
    b.disabled = true;
    try {
      const result = await action();
      if (result && result.cancelled) return;
      // the parked routes answer how many rows they changed
      const changed = result && typeof result.changed === 'number' ? `, ${result.changed} changed` : '';
      notice(`${label}: done${changed}`, false);
    } catch (e) {
      notice(`${label} failed: ${e.message}`, true);
    } finally {
      b.disabled = false;
    }
    refresh();
  }

  /** What the last refresh found, or why it failed. */
  function summary(text, error) {
    show(document.getElementById('summary'), text, error);
  }

  /** What the last action did, or why it failed; read out by screen readers. */
  function notice(text, error) {
    show(document.getElementById('notice'), text, error);
  }

  function show(p, text, error) {
    p.textContent = text;
    p.classList.toggle('error', error);
  }

  // ---- the tables -----------------------------------------------------------------------------

  function stateText(k) {
    return k.paused ? `${k.state} (${k.paused})` : k.state;
  }

  function healthCell(k) {
    const h = k.health;
    if (!h || h.healthy) return cell(k.paused ? 'paused' : 'ok', 'health ok');
    const td = cell(h.reasons.join(', '), 'health bad');
    if (h.problem) td.title = h.problem;
    return td;
  }

  function freshnessCell(k, now) {
    if (!k.lastSuccessAt) return cell('never', 'freshness');
    const age = duration(Date.parse(now) - Date.parse(k.lastSuccessAt));
    const td = cell(k.stale ? `${age} (stale)` : age, k.stale ? 'freshness stale' : 'freshness');
    td.title = `last successful poll ${instant(k.lastSuccessAt)}; stale after ${duration(k.staleAfterMs)}`;
    return td;
  }

  function keyRow(k, now) {
    const name = keyName(k.poller, k.partition);
    const tr = element('tr');
    tr.dataset.key = name;
    if (k.health && !k.health.healthy) tr.className = 'unhealthy';
    else if (k.paused) tr.className = 'paused';
    const error = k.lastError;
    tr.append(
      element('th', k.poller, 'poller'),
      cell(k.partition || '—', 'partition'),
      cell(stateText(k), 'state'),
      healthCell(k),
      freshnessCell(k, now),
      cell(k.lagMs === null || k.lagMs === undefined ? '—' : duration(k.lagMs), 'lag num'),
      cell(k.outboxPending, 'outbox num'),
      cell(k.parked, 'parked num'),
      cell(error ? `${error.name}: ${error.message}` : '—', 'last-error'),
      timeCell(error ? error.at : null, now)
    );
    tr.firstChild.scope = 'row';
    if (k.consecutiveFailures > 0) {
      tr.lastChild.append(element('span', ` · ${k.consecutiveFailures} failed in a row`, 'failures'));
    }
    const actions = cell(null, 'actions');
    if (k.paused) {
      actions.append(button('Resume', `Resume ${name}`, () => pollerAction('resume', k.poller, k.partition)));
    } else {
      actions.append(button('Pause', `Pause ${name}`, () => pollerAction('pause', k.poller, k.partition)));
    }
    actions.append(button('Trigger', `Trigger ${name}`, () => pollerAction('trigger', k.poller, k.partition)));
    if (k.parked > 0) {
      actions.append(
        button('Retry parked', `Retry every parked event of ${name}`,
          () => parkedAction('retry', k.poller, k.partition, null)),
        button('Discard parked', `Discard every parked event of ${name}`,
          () => confirmed(`Discard all ${k.parked} parked rows of ${name} for good?`,
            () => parkedAction('discard', k.poller, k.partition, null)), 'danger')
      );
    }
    tr.append(actions);
    return tr;
  }

  function parkedRow(p) {
    const name = keyName(p.poller, p.partition);
    const tr = element('tr');
    tr.dataset.key = name;
    tr.dataset.id = p.id;
    tr.append(
      element('th', p.poller, 'poller'),
      cell(p.partition || '—', 'partition'),
      cell(p.id, 'id'),
      cell(p.kind, 'kind'),
      cell(p.orderingKey, 'ordering-key'),
      cell(p.attempts, 'attempts num'),
      cell(instant(p.parkedAt), 'parked-at'),
      cell(p.error, 'parked-error')
    );
    tr.firstChild.scope = 'row';
    const actions = cell(null, 'actions');
    actions.append(
      button('Retry', `Retry parked ${p.id} of ${name}`,
        () => parkedAction('retry', p.poller, p.partition, [p.id])),
      button('Discard', `Discard parked ${p.id} of ${name}`,
        () => confirmed(`Discard parked ${p.id} of ${name} for good?`,
          () => parkedAction('discard', p.poller, p.partition, [p.id])), 'danger')
    );
    tr.append(actions);
    return tr;
  }

  /** When a stuck lane is tried again: the first backoffs are under a second. */
  function retryIn(ms) {
    if (ms <= 0) return 'due';
    return ms < 1000 ? `${ms} ms` : duration(ms);
  }

  function effectRow(e) {
    const tr = element('tr');
    tr.dataset.effect = e.name;
    if (e.state !== 'ok' && e.state !== 'lagging') tr.className = 'unhealthy';
    const held = e.running === false ? ' (run by another engine, read from the store)' : '';
    const state = (e.quarantine_reason ? `${e.state} (${e.quarantine_reason})` : e.state) + held;
    tr.append(
      element('th', e.name, 'effect'),
      cell(state, 'state'),
      cell(e.position, 'position num'),
      cell(e.lag, 'lag num'),
      cell(e.wedged_lanes, 'wedged num'),
      cell(e.terminal_skips, 'terminal-skips num'),
      cell(e.last_error || '—', 'effect-error')
    );
    tr.firstChild.scope = 'row';
    if (e.last_terminal_error) tr.lastChild.title = `last terminal failure: ${e.last_terminal_error}`;
    return tr;
  }

  function stuckRow(e, l) {
    const tr = element('tr');
    tr.dataset.effect = e.name;
    tr.dataset.position = l.position;
    const lane = l.lane === null ? '(no key)' : l.lane;
    const where = `position ${l.position} of ${keyName(e.name, l.partition)}`;
    const running = l.running_ms !== null && l.running_ms !== undefined;
    tr.append(
      element('th', e.name, 'effect'),
      cell(l.partition || '—', 'partition'),
      cell(lane, 'lane'),
      cell(l.position, 'position num'),
      cell(l.attempt, 'attempt num'),
      cell(running ? `running ${Math.floor(l.running_ms / 1000)} s` : retryIn(l.retry_in_ms),
        running ? 'running num' : 'retry-in num'),
      cell(l.error, 'stuck-error')
    );
    tr.firstChild.scope = 'row';
    const actions = cell(null, 'actions');
    // A running retry can be neither retried nor skipped (409): offer nothing until it ends. Retry
    // now needs the engine that holds the lanes; a skip is a request any engine can store.
    if (!running && e.running !== false) actions.append(
      button('Retry now', `Retry ${where} now`, () => retryNow(e.name, l.position, l.partition)));
    if (!running) actions.append(
      button('Skip', `Skip ${where}`,
        () => confirmed(`Skip ${where} (lane ${lane}) for good? Its arm will not run again.`,
          () => skip(e.name, l.position, l.partition)), 'danger')
    );
    tr.append(actions);
    return tr;
  }

  /** An invocation running for 30 s or more, in the stuck lanes table; it cannot be skipped. */
  function inFlightRow(e, l) {
    const tr = element('tr');
    tr.dataset.effect = e.name;
    tr.dataset.position = l.position;
    tr.className = 'in-flight';
    tr.append(
      element('th', e.name, 'effect'),
      cell(l.partition || '—', 'partition'),
      cell(l.lane === null ? '(no key)' : l.lane, 'lane'),
      cell(l.position, 'position num'),
      cell(l.attempt, 'attempt num'),
      cell(`running ${Math.floor(l.running_ms / 1000)} s`, 'running num'),
      cell(l.error || '—', 'stuck-error'),
      cell(null, 'actions')
    );
    tr.firstChild.scope = 'row';
    return tr;
  }

  /** The effects tables, hidden on a server without effects; returns the summary's part. */
  function renderEffects(effects) {
    document.getElementById('effects-section').hidden = effects === null;
    if (effects === null) return '';
    document.querySelector('#effects tbody').replaceChildren(...effects.map(effectRow));
    const stuck = effects.flatMap((e) => e.stuck_lanes.map((l) => stuckRow(e, l)))
      .concat(effects.flatMap((e) => (e.in_flight_lanes || []).map((l) => inFlightRow(e, l))));
    document.querySelector('#stuck tbody').replaceChildren(...stuck);
    document.getElementById('stuck').hidden = stuck.length === 0;
    document.getElementById('stuck-empty').hidden = stuck.length !== 0;
    const notOk = effects.filter((e) => e.state !== 'ok').length;
    return `, ${effects.length} effect(s), ${notOk} not ok`;
  }

  /** Runs a destructive action only once the operator has confirmed it. */
  function confirmed(question, action) {
    return window.confirm(question) ? action() : Promise.resolve({ cancelled: true });
  }

  function render(pollers, parked) {
    const now = pollers.at;
    document.querySelector('#keys tbody').replaceChildren(...pollers.pollers.map((k) => keyRow(k, now)));
    const rows = parked.parked || [];
    document.querySelector('#parked tbody').replaceChildren(...rows.map(parkedRow));
    document.getElementById('parked').hidden = rows.length === 0;
    document.getElementById('parked-empty').hidden = rows.length !== 0;
    // the admin server answers the oldest rows first, up to its limit, and says how many there are
    const more = document.getElementById('parked-more');
    more.hidden = !(parked.total > rows.length);
    more.textContent = `Showing the oldest ${rows.length} of ${parked.total} parked rows; watukuy parked list shows them all.`;
    const refreshed = document.getElementById('refreshed');
    refreshed.textContent = instant(now);
    refreshed.dateTime = now;
    const unhealthy = pollers.pollers.filter((k) => k.health && !k.health.healthy).length;
    const total = pollers.pollers.reduce((sum, k) => sum + k.parked, 0);
    return `${pollers.pollers.length} key(s), ${unhealthy} unhealthy, ${total} parked`;
  }

  // ---- refreshing -----------------------------------------------------------------------------

  /**
   * Reads both documents and renders them, then schedules the next refresh. One read at a time: a
   * refresh asked for while one is in flight (after an action, say) runs as soon as it ends, so the
   * page never shows a read that started before the action.
   */
  function refresh() {
    clearTimeout(timer);
    if (inFlight) {
      again = true;
      return;
    }
    // A hidden tab reads nothing (a forgotten tab costs the store no inspections); showing it
    // again refreshes at once.
    if (document.visibilityState === 'hidden') {
      timer = setTimeout(refresh, REFRESH_MS);
      return;
    }
    inFlight = Promise.all([request('GET', POLLERS), request('GET', PARKED), readEffects()])
      .then(([pollers, parked, effects]) =>
        summary(render(pollers, parked) + renderEffects(effects), false))
      .catch((e) => summary(`Could not read the admin API: ${e.message}`, true))
      .finally(() => {
        inFlight = null;
        if (again) {
          again = false;
          refresh();
        } else {
          timer = setTimeout(refresh, REFRESH_MS);
        }
      });
  }

  document.getElementById('token-form').addEventListener('submit', useToken);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') refresh();
  });
  refresh();
})();
