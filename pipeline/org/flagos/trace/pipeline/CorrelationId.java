package org.flagos.trace.pipeline;

/**
 * The vendor's correlation id: pairs one runtime API call with the device work it produced.
 * It draws flow arrows ({@code ac2g}) and is written as {@code args.correlation}. It never
 * attributes time to a host op; that is {@link ExternalId}'s job.
 *
 * @param value the vendor's unsigned 32-bit id, widened
 */
public record CorrelationId(long value) {
    public CorrelationId {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("vendor correlation id out of u32 range: " + value);
        }
    }
}
