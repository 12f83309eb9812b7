/**
 * The vendor-neutral model every floor shares: TraceRecord and its kinds and ids, the ring's
 * slot, the name table, the DeviceTracer and ActivityBufferDecoder contracts a vendor implements,
 * and the small maps the stages keep. Floor 0, the ground floor: imports nothing of the project;
 * every floor may import it.
 */
package org.flagos.trace.model;
