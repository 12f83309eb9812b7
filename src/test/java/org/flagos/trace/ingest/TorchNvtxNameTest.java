package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.flagos.trace.model.ExternalId;
import org.junit.jupiter.api.Test;

/**
 * torch's emit_nvtx range names, as the H100 run of benchmarks/device/torch-run/train.py under
 * {@code flagtrace run} recorded them (2026-12-05, torch 2.11), and in the form torch's getNvtxStr
 * writes with record_shapes (sizes and input op ids after the op id).
 */
class TorchNvtxNameTest {
    private static HostOp op(String text) {
        return TorchNvtxName.op(text, new ExternalId(5), 11, 100, 200);
    }

    private static String args(HostOp op) {
        return op.args() == null ? null : op.args().toJson();
    }

    @Test
    void sequenceAndOpIdLeaveTheName() {
        HostOp op = op("aten::zero_, seq = 18, op_id = 2");
        assertEquals("aten::zero_", op.name());
        assertEquals("{\"Sequence number\":18,\"op_id\":2}", args(op));
        assertEquals(new ExternalId(5), op.externalId());
        assertEquals(11, op.thread());
        assertEquals(100, op.startNs());
        assertEquals(200, op.endNs());
    }

    @Test
    void anOpIdAloneAndAnnotationNamesWithPunctuation() {
        assertEquals("aten::fill_", op("aten::fill_, op_id = 3").name());
        HostOp step = op("Optimizer.zero_grad#SGD.zero_grad, op_id = 1");
        assertEquals("Optimizer.zero_grad#SGD.zero_grad", step.name());
        assertEquals("{\"op_id\":1}", args(step));
    }

    @Test
    void shapesBecomeTorchsInputDimsAndInputOpIdsStayText() {
        HostOp op = op("aten::mm, seq = 12, op_id = 40, sizes = [[64, 512], [512, 1024], []], input_op_ids = [(38,0), (39,0)]");
        assertEquals("aten::mm", op.name());
        assertEquals("{\"Sequence number\":12,\"op_id\":40,\"Input Dims\":[[64,512],[512,1024],[]],"
                + "\"input_op_ids\":\"[(38,0), (39,0)]\"}", args(op));
    }

    @Test
    void aNameThatIsNotTorchsStaysWhole() {
        for (String text : new String[] {"measured", "step", "a, b", "x, seq = ", "x, seq = 1a", "x, seq = 1, extra",
                "x, sizes = [[1, 2]", "x, sizes = [1, 2]", "x, op_id = 99999999999999999999", ", seq = 1",
                "x, sizes = [[1, q]]", "x, input_op_ids = (1,0)"}) {
            HostOp op = op(text);
            assertEquals(text, op.name(), text);
            assertNull(op.args(), text);
        }
    }

    @Test
    void fieldsOutOfTorchsOrderAreNotTorchs() {
        HostOp op = op("aten::mm, op_id = 4, seq = 1");
        assertEquals("aten::mm, op_id = 4, seq = 1", op.name());
    }

    @Test
    void argsPastTheBoundsKeepTheWholeName() {
        StringBuilder shapes = new StringBuilder("x, sizes = [");
        for (int i = 0; i < 4000; i++) {
            shapes.append(i == 0 ? "" : ", ").append("[123456, 654321]");
        }
        String text = shapes.append(']').toString();
        HostOp op = op(text);
        assertEquals(text, op.name(), "16 KiB of values at most: the name stays whole, nothing is lost");
        assertNull(op.args());
    }
}
