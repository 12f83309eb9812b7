/**
 * The C++ symbol demangler (Itanium ABI, c++filt-exact) the name stage uses for kernel names. It
 * sits below stages/ because only the stages use it. Floor 1, on the model: imports only the
 * model and its own floor; imported by the encoders, the pipeline, the analysis and the CLI
 * (vendor types only through Vendors).
 */
package org.flagos.trace.stages.names;
