package org.flagos.trace.fuzz;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One {@link CaptureReplayFuzzTest} input: a capture with its ops file, kernel name table and device
 * properties in one byte string. Layout (little-endian): {@code flags:u8}; when flag 1 is set
 * {@code opsLength:u32 ops[opsLength]}; when flag 2 is set {@code namesLength:u32
 * names[namesLength]}; when flag 8 is set {@code devicesLength:u32 devices[devicesLength]}; then
 * the {@code .fltrbuf} bytes to the end. Flag 4 (without 8) replays with the bundled H200 device
 * properties. A length past the end is cut to what is left, so every byte string is an input.
 *
 * @param ops         the {@code .ops.jsonl} bytes, or null for a replay without ops
 * @param names       the {@code .names.tsv} bytes, or null for a replay without a name table
 * @param h200        replay with the bundled H200 properties ({@code --device-properties h200})
 * @param devicesJson a device properties file's bytes ({@code --device-properties FILE.json}), or null
 */
record ReplayInput(byte[] capture, byte[] ops, byte[] names, boolean h200, byte[] devicesJson) {
    static final int OPS = 1;
    static final int NAMES = 2;
    static final int H200 = 4;
    static final int DEVICES_JSON = 8;

    static ReplayInput split(byte[] input) {
        if (input.length == 0) {
            return new ReplayInput(input, null, null, false, null);
        }
        int flags = input[0];
        int[] at = {1};
        byte[] ops = (flags & OPS) != 0 ? section(input, at) : null;
        byte[] names = (flags & NAMES) != 0 ? section(input, at) : null;
        byte[] devicesJson = (flags & DEVICES_JSON) != 0 ? section(input, at) : null;
        return new ReplayInput(Arrays.copyOfRange(input, at[0], input.length), ops, names, (flags & H200) != 0, devicesJson);
    }

    private static byte[] section(byte[] input, int[] at) {
        int start = Math.min(at[0] + 4, input.length);
        long length = 0;
        for (int i = at[0]; i < start; i++) {
            length |= (input[i] & 0xffL) << (8 * (i - at[0]));
        }
        int end = (int) Math.min(start + length, input.length);
        at[0] = end;
        return Arrays.copyOfRange(input, start, end);
    }

    /** The byte string that {@link #split} turns back into this input (for building seeds). */
    byte[] join() {
        ByteBuffer out = ByteBuffer.allocate(1 + (ops == null ? 0 : 4 + ops.length) + (names == null ? 0 : 4 + names.length)
                + (devicesJson == null ? 0 : 4 + devicesJson.length) + capture.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put((byte) ((ops != null ? OPS : 0) | (names != null ? NAMES : 0) | (h200 ? H200 : 0)
                | (devicesJson != null ? DEVICES_JSON : 0)));
        for (byte[] section : new byte[][] {ops, names, devicesJson}) {
            if (section != null) {
                out.putInt(section.length).put(section);
            }
        }
        return out.put(capture).array();
    }
}
