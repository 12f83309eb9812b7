/**
 * What every vendor's activity tracer shares: loading the vendor library, the completed-buffer
 * queue and the bounds of a record. Floor 1, on the model: imports only the model and its own
 * floor; imported by the encoders, the pipeline, the analysis and the CLI (vendor types only
 * through Vendors).
 */
package org.flagos.trace.vendors.activity;
