/** The XML feed example's endpoint (examples/xml-feed/README.md). */
package io.watukuy.examples.xmlfeed;
