/**
 * The CUPTI-shaped family (PPU, MCPTI, MUPTI, TOPSPTI): one tracer, clock and API-name scheme for
 * libraries that copy CUPTI's calls under another prefix. Floor 1, on the model: imports only the
 * model and its own floor; imported by the encoders, the pipeline, the analysis and the CLI
 * (vendor types only through Vendors).
 */
package org.flagos.trace.vendors.family;
