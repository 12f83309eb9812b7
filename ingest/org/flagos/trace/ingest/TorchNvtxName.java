package org.flagos.trace.ingest;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpArgs;

/**
 * The host op an NVTX range names, with the fields torch's {@code emit_nvtx} appends to an op's
 * name taken out of the name and into its args: {@code "aten::mm, seq = 12, op_id = 40, sizes =
 * [[64, 512], [512, 1024]], input_op_ids = [(38, 0)]"} becomes the op {@code aten::mm} with
 * {@code "Sequence number": 12}, {@code "Input Dims": [[64, 512], [512, 1024]]} (torch's own keys, as
 * its profiler's trace writes them), {@code "op_id": 40} and {@code "input_op_ids": "[(38, 0)]"}. So
 * ops group by name in every summary, as torch's {@code key_averages} groups them, instead of one row
 * per call. The fields are read from the end of the name, in the order torch writes them; a name
 * that does not end that way, or whose fields do not parse or do not fit {@link OpArgs}' bounds,
 * stays whole (nothing is lost).
 */
public final class TorchNvtxName {
    private static final String SEQ = ", seq = ";
    private static final String OP_ID = ", op_id = ";
    private static final String SIZES = ", sizes = ";
    private static final String INPUT_OP_IDS = ", input_op_ids = ";
    /** The arg torch's trace gives an op's autograd sequence number. */
    public static final String SEQUENCE_NUMBER = "Sequence number";

    private TorchNvtxName() {
    }

    /** The op of a range {@code text} pushed on {@code thread} from {@code startNs} to {@code endNs}. */
    public static HostOp op(String text, ExternalId externalId, long thread, long startNs, long endNs) {
        int cut = firstField(text);
        if (cut <= 0) {
            return new HostOp(text, externalId, thread, startNs, endNs);
        }
        OpArgs args = args(text.substring(cut));
        if (args == null) {
            return new HostOp(text, externalId, thread, startNs, endNs);
        }
        return new HostOp(text.substring(0, cut), externalId, thread, startNs, endNs, null, args, null);
    }

    /** Where the first of torch's fields starts: the first of the four markers present, else -1. */
    private static int firstField(String text) {
        int at = -1;
        for (String marker : new String[] {SEQ, OP_ID, SIZES, INPUT_OP_IDS}) {
            int i = text.indexOf(marker);
            if (i > 0 && (at < 0 || i < at)) {
                at = i;
            }
        }
        return at;
    }

    /** The args of {@code fields} (the name's tail from its first marker), or null if it is not torch's. */
    private static OpArgs args(String fields) {
        OpArgs.Builder b = OpArgs.builder();
        int at = 0;
        try {
            if (fields.startsWith(SEQ, at)) {
                int end = digitsEnd(fields, at + SEQ.length());
                b.add(SEQUENCE_NUMBER, Long.parseLong(fields.substring(at + SEQ.length(), end)));
                at = end;
            }
            if (fields.startsWith(OP_ID, at)) {
                int end = digitsEnd(fields, at + OP_ID.length());
                b.add("op_id", Long.parseLong(fields.substring(at + OP_ID.length(), end)));
                at = end;
            }
            if (fields.startsWith(SIZES, at)) {
                int start = at + SIZES.length();
                int end = listEnd(fields, start);
                b.inputDims(shapes(fields.substring(start, end)));
                at = end;
            }
            if (fields.startsWith(INPUT_OP_IDS, at)) {
                int start = at + INPUT_OP_IDS.length();
                int end = listEnd(fields, start);
                b.add("input_op_ids", fields.substring(start, end));
                at = end;
            }
            return at == fields.length() && at > 0 ? b.build() : null;
        } catch (IllegalArgumentException notTorchs) { // NumberFormatException included; OpArgs' bounds
            return null;
        }
    }

    private static int digitsEnd(String s, int from) {
        int i = from;
        while (i < s.length() && i - from < 19 && Character.isDigit(s.charAt(i))) {
            i++;
        }
        if (i == from) {
            throw new IllegalArgumentException("no digits");
        }
        return i;
    }

    /** The index after the bracketed list that starts at {@code from}. */
    private static int listEnd(String s, int from) {
        if (from >= s.length() || s.charAt(from) != '[') {
            throw new IllegalArgumentException("no list");
        }
        int depth = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']' && --depth == 0) {
                return i + 1;
            }
        }
        throw new IllegalArgumentException("unclosed list");
    }

    /** {@code [[64, 512], [], [3]]} as shapes; anything else is refused. */
    private static long[][] shapes(String list) {
        String inner = list.substring(1, list.length() - 1).trim();
        List<long[]> out = new ArrayList<>();
        int i = 0;
        while (i < inner.length()) {
            if (inner.charAt(i) != '[') {
                throw new IllegalArgumentException("not a shape");
            }
            int end = inner.indexOf(']', i);
            if (end < 0) {
                throw new IllegalArgumentException("unclosed shape");
            }
            String dims = inner.substring(i + 1, end).trim();
            if (dims.isEmpty()) {
                out.add(new long[0]);
            } else {
                String[] parts = dims.split(",");
                long[] shape = new long[parts.length];
                for (int k = 0; k < parts.length; k++) {
                    shape[k] = Long.parseLong(parts[k].trim());
                }
                out.add(shape);
            }
            i = end + 1;
            while (i < inner.length() && (inner.charAt(i) == ',' || inner.charAt(i) == ' ')) {
                i++;
            }
        }
        return out.toArray(new long[0][]);
    }
}
