/**
 * The PPU SDK's CUPTI-compatible activity library, through the CUPTI-shaped family. Floor 1, on
 * the model: imports only the model and its own floor; imported by the encoders, the pipeline,
 * the analysis and the CLI (vendor types only through Vendors).
 */
package org.flagos.trace.vendors.ppu;
