/**
 * Test support for watukuy users and store authors: a virtual clock, seeded randomness, fake and
 * canned vendors, and the contract suites a store extends to certify itself (docs/stores.md).
 */
module io.watukuy.testing {
  requires transitive io.watukuy;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;
  requires transitive java.sql; // JdbcTestServer hands out connections; the driver is the caller's
  requires static org.jspecify;
  requires jdk.httpserver; // MutatingVendor, the process-kill tests' vendor

  exports io.watukuy.testing;

  // JUnit runs the contract suites' package-private test methods in users' subclasses; Jackson
  // writes MutatingVendor's pages
  opens io.watukuy.testing to
      org.junit.platform.commons,
      com.fasterxml.jackson.databind;
}
