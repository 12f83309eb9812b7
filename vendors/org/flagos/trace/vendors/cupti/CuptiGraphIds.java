package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import org.flagos.trace.model.RecordField;
import org.flagos.trace.model.TraceRecord;

/**
 * The graph ids of a kernel, copy or set launched by {@code cudaGraphLaunch}: {@code graphId}
 * (32 bits) and {@code graphNodeId} (64 bits), read in place. CUPTI writes 0 as the graph id of work
 * launched outside a graph, so such a record gets no graph fields and reads as it always did.
 */
final class CuptiGraphIds {
    private CuptiGraphIds() {
    }

    /** Copies the ids at {@code nodeAt} and {@code graphAt} (already bounds-checked by the record's wrap) into {@code slot}. */
    static void publish(TraceRecord slot, ByteBuffer buffer, int nodeAt, int graphAt) {
        long graph = Integer.toUnsignedLong(buffer.getInt(graphAt));
        if (graph != 0) {
            slot.graphId = graph;
            slot.graphNodeId = buffer.getLong(nodeAt);
            slot.present(RecordField.GRAPH);
        }
    }
}
