/**
 * The built-in CUDA workloads (parity, kinds, exchange) that make a real capture on an NVIDIA
 * device for the device tests and benchmarks. Floor 1, on the model: imports only the model and
 * its own floor; imported by the encoders, the pipeline, the analysis and the CLI (vendor types
 * only through Vendors).
 */
package org.flagos.trace.vendors.cupti.workload;
