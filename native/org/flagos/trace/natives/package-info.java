/**
 * JavaCPP bindings of the vendor activity libraries flagtrace binds itself (MSPTI, ROCtracer,
 * CUPTI-shaped libraries), with their C++ side in native/cpp. The package is natives, not native:
 * native is a Java keyword and cannot name a package. Floor 1, on the model: imports only the
 * model and its own floor; imported by the encoders, the pipeline, the analysis and the CLI
 * (vendor types only through Vendors).
 */
package org.flagos.trace.natives;
