/**
 * The Chronicle Queue journal of a live session: its writer, its reader and its damage checks, so
 * a killed recorder loses nothing it acknowledged. Floor 1, on the model: imports only the model
 * and its own floor; imported by the encoders, the pipeline, the analysis and the CLI (vendor
 * types only through Vendors).
 */
package org.flagos.trace.journal;
