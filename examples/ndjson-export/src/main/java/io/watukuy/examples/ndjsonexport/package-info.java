/** The NDJSON export example's endpoint (examples/ndjson-export/README.md). */
package io.watukuy.examples.ndjsonexport;
