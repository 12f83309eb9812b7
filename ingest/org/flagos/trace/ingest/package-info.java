/**
 * Readers of what a capture leaves on disk: .fltrbuf frames, .ops.jsonl host ops, kernel name
 * tables, device properties and clock sidecars, each with its bounds and its counted losses.
 * Floor 1, on the model: imports only the model and its own floor; imported by the encoders, the
 * pipeline, the analysis and the CLI (vendor types only through Vendors).
 */
package org.flagos.trace.ingest;
