/**
 * Enflame GCU TOPSPTI: its tracer and buffer decoder. Floor 1, on the model: imports only the
 * model and its own floor; imported by the encoders, the pipeline, the analysis and the CLI
 * (vendor types only through Vendors).
 */
package org.flagos.trace.vendors.topspti;
