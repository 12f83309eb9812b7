package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** The kernel-name list of communication and the interval union past its buffer. */
class RankTimesPartsTest {
    @Test
    void communicationIsTheDocumentedNames() {
        for (String name : new String[] {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_SendRecv", "NCCL_whatever",
                "rccl_AllGather_bf16", "hccl_Broadcast", "mccl_SendRecv_p2p", "void ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"}) {
            assertEquals(DeviceWorkKind.COMMUNICATION, DeviceWorkKind.of("kernel", name), name);
        }
        // a collective's word outside a collective library's prefix is no communication (CollectiveKernelsTest)
        for (String name : new String[] {"cross_device_reduce_allreduce_1stage", "c10d::ReduceScatter_kernel", "AllToAll_v",
                "my_nccl_wrapper_kernel"}) {
            assertEquals(DeviceWorkKind.COMPUTATION, DeviceWorkKind.of("kernel", name), name);
        }
        assertEquals(DeviceWorkKind.COMPUTATION, DeviceWorkKind.of("kernel", "sm80_xmma_gemm_f32f32"));
        assertEquals(DeviceWorkKind.COMPUTATION, DeviceWorkKind.of("Kernel", "_Z4reluPfi"));
        assertEquals(DeviceWorkKind.MEMORY, DeviceWorkKind.of("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)"));
        assertEquals(DeviceWorkKind.MEMORY, DeviceWorkKind.of("Memset", "Memset (Device)"));
        assertNull(DeviceWorkKind.of("cpu_op", "ncclAllReduce"));
    }

    @Test
    void overlappingCommunicationAndComputationSplitTheSpan(@TempDir Path dir) throws Exception {
        // one rank (slot 0, pids 1000+): comm [0,10), compute [5,20) and [35,40), memcpy [18,30); host step [0,40)
        String events = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather\",\"pid\":1001,\"tid\":7,\"ts\":0,\"dur\":10},"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":1001,\"tid\":8,\"ts\":5,\"dur\":15},"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":1001,\"tid\":8,\"ts\":35,\"dur\":5},"
                + "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoD\",\"pid\":1001,\"tid\":9,\"ts\":18,\"dur\":12},"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#3\",\"pid\":1000,\"tid\":1,\"ts\":0,\"dur\":40},"
                + "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1001,\"tid\":7,\"ts\":0,\"dur\":99}";
        Path trace = Files.writeString(dir.resolve("m.json"), "{\"traceEvents\":[" + events
                + "],\"flagtrace_merge\":{\"pid_stride\":1000,\"inputs\":[{\"slot\":0,\"rank\":5,\"host\":\"h\"}]}}");
        RankTimes.Rank r = RankTimes.read(trace).ranks().get(0);
        assertEquals("rank 5", r.label());
        assertEquals(40_000, r.deviceSpanNs());
        assertEquals(10_000, r.communicationNs());
        assertEquals(15_000, r.computationNs());
        assertEquals(20_000, r.computationTotalNs());
        assertEquals(10_000, r.memoryNs());
        assertEquals(5_000, r.idleNs());
        assertEquals(5_000, r.overlapNs());
        assertEquals(java.util.Map.of(3L, 40_000L), r.stepTimes(), "the host op, not the device annotation of the same name");
    }

    @Test
    void unionPastTheBufferMatchesACountOfCoveredTicks() {
        Random random = new Random(17);
        int ticks = 200_000;
        boolean[] covered = new boolean[ticks];
        IntervalUnion a = new IntervalUnion();
        IntervalUnion b = new IntervalUnion();
        boolean[] coveredA = new boolean[ticks];
        for (int i = 0; i < 3 * IntervalUnion.BUFFER + 5; i++) {
            int s = random.nextInt(ticks - 20);
            int e = s + random.nextInt(20);
            boolean toA = random.nextBoolean();
            (toA ? a : b).add(s, e);
            for (int t = s; t < e; t++) {
                covered[t] = true;
                coveredA[t] |= toA;
            }
        }
        long all = 0;
        long inA = 0;
        for (int t = 0; t < ticks; t++) {
            all += covered[t] ? 1 : 0;
            inA += coveredA[t] ? 1 : 0;
        }
        assertEquals(inA, a.length());
        assertEquals(all, a.unionLength(b));
        assertEquals(all, b.union(a).length());
    }
}
