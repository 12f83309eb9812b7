package org.flagos.trace.vendors.mspti;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.flagos.trace.natives.MsptiLibrary;
import org.flagos.trace.natives.MsptiLibrary.Handle;
import org.flagos.trace.testing.FakeVendorLibrary;

/**
 * Activity buffers as the fake MSPTI writes them (C structs with the header's packing), taken
 * through the JNI shim without a session: every buffer of one short script, concatenated (records
 * are back to back, so complete buffers joined are one valid buffer).
 */
final class FakeMsptiBuffers {
    static final int[] KINDS = {2, 6, 7, 8, 10, 12};

    static Handle open() {
        BytePointer error = new BytePointer(512);
        Handle lib = MsptiLibrary.ftm_open(FakeVendorLibrary.build("fake_mspti").toString(), error, 512);
        if (lib == null || lib.isNull()) {
            throw new IllegalStateException(error.getString(StandardCharsets.UTF_8));
        }
        return lib;
    }

    /** Where the one sink writes: the running {@link #scripted}'s stream (scripted is synchronized). */
    private static volatile ByteArrayOutputStream collecting;

    /** One sink for every call: JavaCPP has 10 native slots per callback class (see BufferRoutes). */
    private static final class Shared {
        static final MsptiLibrary.BufferSink SINK = new MsptiLibrary.BufferSink() {
            @Override
            public void call(long library, BytePointer buffer, long validSize) {
                ByteArrayOutputStream all = collecting;
                byte[] bytes = new byte[(int) validSize];
                buffer.position(0).capacity(validSize).get(bytes);
                if (all != null) {
                    all.write(bytes, 0, bytes.length);
                }
            }
        };
    }

    /** One launch, copy and memset inside a pushed External id (7), and one launch outside it. */
    static synchronized byte[] scripted() {
        Handle lib = open();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        collecting = all;
        check(MsptiLibrary.ftm_subscribe(lib));
        check(MsptiLibrary.ftm_register(lib, 4096, Shared.SINK));
        for (int kind : KINDS) {
            check(MsptiLibrary.ftm_enable(lib, kind));
        }
        MsptiLibrary.ftm_invoke(lib, "fakeMsptiBegin", 0);
        check(MsptiLibrary.ftm_push(lib, 2, 7));
        MsptiLibrary.ftm_invoke(lib, "fakeLaunchKernel", 1);
        MsptiLibrary.ftm_invoke(lib, "fakeMemcpy", 2);
        MsptiLibrary.ftm_invoke(lib, "fakeMemset", 3);
        check(MsptiLibrary.ftm_pop(lib, 2, new LongPointer(1)));
        MsptiLibrary.ftm_invoke(lib, "fakeLaunchKernel", 4);
        for (int kind : KINDS) {
            check(MsptiLibrary.ftm_disable(lib, kind));
        }
        check(MsptiLibrary.ftm_unsubscribe(lib));
        check(MsptiLibrary.ftm_flush_all(lib, 1));
        MsptiLibrary.ftm_detach(lib);
        return all.toByteArray();
    }

    /** {@link #scripted()}'s bytes as a little-endian buffer, the way the decoder reads them. */
    static ByteBuffer scriptedBuffer() {
        return ByteBuffer.wrap(scripted()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The offsets of the records of {@code kind} in {@code buffer}, walked record by record by each
     * kind's size ({@link MsptiActivityKind#recordSize}); an unknown kind ends the walk with an error.
     */
    static List<Integer> offsets(ByteBuffer buffer, int kind) {
        List<Integer> found = new ArrayList<>();
        for (int pos = 0; pos < buffer.limit(); ) {
            int at = buffer.getInt(pos);
            int size = MsptiActivityKind.recordSize(at);
            if (size <= 0) {
                throw new IllegalStateException("kind " + at + " at offset " + pos + " has no size");
            }
            if (at == kind) {
                found.add(pos);
            }
            pos += size;
        }
        return found;
    }

    /** The script's step of a record, from its correlation id (2^32 + step * 16 + 5, fake_mspti.c). */
    static long step(long correlation) {
        long step = (correlation - (1L << 32) - 5) / 16;
        if ((1L << 32) + step * 16 + 5 != correlation) {
            throw new IllegalStateException("correlation " + correlation + " is not one of the script's");
        }
        return step;
    }

    private static void check(int status) {
        if (status != 0) {
            throw new IllegalStateException("fake MSPTI returned " + status);
        }
    }

    private FakeMsptiBuffers() {
    }
}
