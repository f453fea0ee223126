package io.watukuy.internal;

import io.watukuy.TimeSource;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.util.random.RandomGenerator;

/** What every cycle of an engine shares. */
record CycleContext(
    StateStore store,
    TimeSource time,
    RandomGenerator random,
    String instanceId,
    Duration leaseTtl,
    WatukuyListener listener,
    Dispatcher dispatcher,
    java.util.function.Supplier<java.net.http.HttpClient> httpClient,
    java.util.Set<String> secrets,
    io.watukuy.internal.budget.Budgets budgets) {}
