package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CollectiveEnds}: which events are a collective's kernel (the library's prefix, never a word inside a name;
 * a kernel event with a usable start and duration), the keys (kind up to the parameter list, process group where
 * named), instances ordered by start whatever the file's order, and letting go of them keeping the count.
 */
class CollectiveEndsTest {
    @TempDir
    Path dir;

    private static String kernel(String name, String ts, String dur, String group) {
        return "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + name + "\",\"pid\":0,\"tid\":7,\"ts\":" + ts + ",\"dur\":" + dur
                + ",\"args\":{\"stream\":7" + (group == null ? "" : ",\"Process Group Name\":\"" + group + "\"") + "}}";
    }

    @Test
    void keepsCollectivesKernelsOnlyOrderedByStart() throws Exception {
        List<String> events = List.of(
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "30", "2", "0"),
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "10.5", "1.25", "0"),
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "20", "1", "7"),
                kernel("void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "5", "1", null),
                kernel("void at::native::type_specialized_broadcast_kernel_launcher(int)", "6", "1", null), // torch's, not NCCL
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "\"soon\"", "1", "0"), // no usable time: left out
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "40", "-1", "0"), // a negative duration: unusable
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}",
                "{\"ph\":\"i\",\"cat\":\"kernel\",\"name\":\"ncclKernel_Broadcast\",\"pid\":0,\"tid\":7,\"ts\":3,\"s\":\"t\"}",
                // torch 1.8-1.9's category (the report and the collectives analysis count it too)
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "50", "1", "0").replace("\"kernel\"", "\"Kernel\""));
        Path trace = Files.writeString(dir.resolve("t.json"), "{\"traceEvents\":[" + String.join(",", events) + "]}");
        CollectiveEnds ends = TraceFacts.read(trace).collectives();
        assertEquals(5, ends.count());
        assertEquals(List.of("ncclDevKernel_AllReduce_Sum_f32_RING_LL\t0", "ncclDevKernel_AllReduce_Sum_f32_RING_LL\t7",
                "void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"), ends.series().keySet().stream().toList());
        CollectiveEnds.Series group0 = ends.series().get("ncclDevKernel_AllReduce_Sum_f32_RING_LL\t0");
        assertEquals(3, group0.size);
        assertArrayEquals(new long[] {10_500, 30_000, 50_000}, Arrays.copyOf(group0.starts, 3), "by start, not by the file's order");
        assertArrayEquals(new long[] {11_750, 32_000, 51_000}, Arrays.copyOf(group0.ends, 3));
        assertEquals(0, ends.leftOut);
        ends.release();
        assertEquals(0, ends.series().size());
        assertEquals(5, ends.count(), "the count stays for what is printed");
    }

    @Test
    void kindsAndGroups() {
        assertEquals("ncclKernel_AllReduce_RING_LL_Sum_float",
                CollectiveEnds.key("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", null));
        assertEquals("ncclDevKernel_Broadcast_RING_LL\t0", CollectiveEnds.key("ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "0"));
        assertEquals("ncclDevKernel_Broadcast_RING_LL of group 0", CollectiveEnds.describe("ncclDevKernel_Broadcast_RING_LL\t0"));
        assertEquals("hcclAllReduce", CollectiveEnds.key("  hcclAllReduce  ", null));
    }
}
