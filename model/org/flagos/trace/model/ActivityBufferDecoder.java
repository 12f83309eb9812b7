package org.flagos.trace.model;

import java.nio.ByteBuffer;

/**
 * Decodes one vendor activity buffer, as the vendor handed it to its buffer-completed callback,
 * into ring records. Implementations read the buffer in place and never outside
 * {@code [buffer.position(), buffer.limit())}.
 */
public interface ActivityBufferDecoder {
    /** Decodes every record of {@code buffer} into {@code sink}, counting into {@code stats}. */
    void decode(ByteBuffer buffer, RecordSink sink, DecodeStats stats);

    /** The vendor's API-name namespace for the records this decoder produces. */
    ApiNames apiNames();

    /**
     * Stages this vendor's records need between API naming and the external-correlation join (MSPTI
     * remaps its correlation ids there), in order; the pipeline wires them in for every capture of
     * the vendor, live or replayed. None by default.
     */
    default java.util.List<com.lmax.disruptor.EventHandler<TraceRecord>> stages() {
        return java.util.List.of();
    }
}
