package org.flagos.trace.merge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small traces as flagtrace's replay writes them, for the merge's tests: one rank each, with its blocks. */
final class MergeTraces {
    private MergeTraces() {
    }

    /**
     * Rank {@code rank}'s trace: an op on host pid 4242, its kernel on device 0 stream 7 (pid 0, torch's rows), a
     * {@code [memory]} instant of device 0, a flow pair, the devices, the accounting ({@code invalid_records} =
     * rank + 1, a note) and, with {@code anchorNs} not null, a start anchor.
     */
    static Path trace(Path dir, int rank, String extraEvents, Long anchorNs) throws IOException {
        String anchors = anchorNs == null ? "" : ",\"clock_anchors\":[{\"at\":\"start\",\"realtime_ns\":5"
                + ",\"monotonic_ns\":5,\"trace_ns\":" + anchorNs + ",\"bound_ns\":100}]";
        String json = "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"H200 of rank " + rank + "\",\"totalGlobalMem\":1}],"
                + "\"distributedInfo\":{\"rank\":" + rank + ",\"world_size\":2},\"baseTimeNanoseconds\":1000000000,\n\"traceEvents\":[\n"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":4242,\"tid\":1,\"ts\":10.5,\"dur\":5,\"args\":{\"External id\":3}},\n"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":11,\"dur\":2,"
                + "\"args\":{\"External id\":3,\"correlation\":9,\"device\":0,\"stream\":7}},\n"
                + "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":4242,\"tid\":1,\"ts\":12,\"s\":\"t\","
                + "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Total Allocated\":1024,\"Bytes\":1024}},\n"
                + "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":9,\"pid\":4242,\"tid\":1,\"ts\":10.5},\n"
                + "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":9,\"pid\":0,\"tid\":7,\"ts\":11,\"bp\":\"e\"}"
                + (extraEvents.isEmpty() ? "" : ",\n" + extraEvents) + "\n],\n"
                + "\"flagtrace\":{\"events\":5,\"invalid_records\":" + (rank + 1) + ",\"host_clock\":{\"bound_ns\":7}"
                + ",\"notes\":[\"a note of rank " + rank + "\"]" + anchors + "}}";
        return Files.writeString(dir.resolve("rank" + rank + ".json"), json);
    }
}
