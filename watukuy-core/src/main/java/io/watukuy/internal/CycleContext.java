package io.watukuy.internal;

import io.watukuy.TimeSource;
import io.watukuy.WatukuyListener;
import io.watukuy.internal.budget.Budgets;
import io.watukuy.spi.StateStore;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * What every cycle of an engine shares.
 *
 * @param ahead where a lane's next page is fetched while its page before is committed and
 *     delivered: the engine's cycle executor (docs/architecture.md, "A page ahead")
 * @param resends the attempts of requests that a later cycle sends again (RequestInfo.attempt)
 * @param cycleIds the last cycle id handed out (CycleInfo.id)
 */
record CycleContext(
    StateStore store,
    TimeSource time,
    RandomGenerator random,
    String instanceId,
    Duration leaseTtl,
    WatukuyListener listener,
    Dispatcher dispatcher,
    Supplier<HttpClient> httpClient,
    Set<String> secrets,
    Budgets budgets,
    Executor ahead,
    Resends resends,
    AtomicLong cycleIds) {}
