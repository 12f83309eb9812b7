package org.flagos.trace.model;

/**
 * The vendor's correlation id: pairs one runtime API call with the device work it produced.
 * It draws flow arrows ({@code ac2g}) and is written as {@code args.correlation}. It never
 * attributes time to a host op; that is {@link ExternalId}'s job.
 *
 * @param value the vendor's id: 64 bits, unsigned (CUPTI's are 32-bit, ROCtracer's and MSPTI's 64)
 */
public record CorrelationId(long value) {
    @Override
    public String toString() {
        return "CorrelationId[" + Long.toUnsignedString(value) + "]";
    }
}
