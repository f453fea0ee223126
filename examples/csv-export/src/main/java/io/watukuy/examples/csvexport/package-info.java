/** The CSV export example's endpoint (examples/csv-export/README.md). */
package io.watukuy.examples.csvexport;
