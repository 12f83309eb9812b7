/**
 * The one vendor table (Vendors) and the plugin contract each vendor fills: everything that is
 * vendor-specific starts here. Floor 1, on the model: imports only the model and its own floor;
 * imported by the encoders, the pipeline, the analysis and the CLI (vendor types only through
 * Vendors).
 */
package org.flagos.trace.vendors;
