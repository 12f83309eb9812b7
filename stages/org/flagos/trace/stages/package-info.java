/**
 * The ring's stages and the trace walk: API names, the external-correlation join, the capture
 * window, the host-op ledger and op summary, and the TraceSink contract (rows, header, footer)
 * the walk hands to an output format. Floor 1, on the model: imports only the model and its own
 * floor; imported by the encoders, the pipeline, the analysis and the CLI (vendor types only
 * through Vendors).
 */
package org.flagos.trace.stages;
