package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.encoders.FixedDecimal;
import org.junit.jupiter.api.Test;

class CudaOccupancyTest {

    private static final DeviceProperties H200 = loadH200();

    // ---------------------------------------------------------------------------------------------
    // Every kernel event of the reference torch-cuda H200 capture
    // ---------------------------------------------------------------------------------------------

    private static final Pattern INT_ARG = Pattern.compile("\"(registers per thread|shared memory|est\\. achieved occupancy %)\": (-?\\d+)");
    private static final Pattern TEXT_ARG = Pattern.compile("\"(blocks per SM|warps per SM)\": (\"inf\"|-?[0-9.]+)");
    private static final Pattern DIMS_ARG = Pattern.compile("\"(grid|block)\": \\[(\\d+), (\\d+), (\\d+)\\]");

    @Test
    void reproducesEveryKernelEventOfTheH200Capture() throws IOException {
        List<String> events = lines("h200_kernel_args.txt");
        assertEquals(25, events.size(), "the capture has 25 kernel events");
        for (String event : events) {
            int regs = intArg(event, "registers per thread");
            int smem = intArg(event, "shared memory");
            int[] grid = dims(event, "grid");
            int[] block = dims(event, "block");

            assertEquals(textArg(event, "blocks per SM"),
                    FixedDecimal.render(CudaOccupancy.blocksPerSm(H200, grid[0], grid[1], grid[2])), event);
            assertEquals(textArg(event, "warps per SM"),
                    FixedDecimal.render(CudaOccupancy.warpsPerSm(H200, grid[0], grid[1], grid[2],
                            block[0], block[1], block[2])), event);
            // The trace's "shared memory" is static + dynamic; with kineto's function attributes (default
            // shared memory limit, no dynamic cap) the calculator only uses the sum, so any split gives
            // the same answer. Check that with several splits.
            int expected = intArg(event, "est. achieved occupancy %");
            for (int dynamic : new int[] {0, smem / 2, smem}) {
                int percent = CudaOccupancy.occupancyPercentArg(H200, grid[0], grid[1], grid[2],
                        block[0], block[1], block[2], regs, smem - dynamic, dynamic);
                assertEquals(expected, percent, event + " (dynamic " + dynamic + ")");
                assertEquals(expected, CudaOccupancy.occupancyPercent(H200, grid[0], grid[1], grid[2],
                        block[0], block[1], block[2], regs, smem - dynamic, dynamic), event);
            }
        }
    }

    @Test
    void theH200CaptureKernelsHaveTheExpectedCalculatorLimits() {
        // 256 threads x 44 regs: 1536 regs per warp, 10 warps per sub-partition, 40 warps: 5 blocks
        assertEquals(5, CudaOccupancy.maxActiveBlocksPerSm(H200, 44, 0, 0, 256));
        assertEquals(CudaOccupancy.LIMIT_REGISTERS, CudaOccupancy.limitingFactors(H200, 44, 0, 0, 256));
        // the cub radix sort pass: 384 threads x 80 regs, 45056 B shared memory: 2560 regs per warp,
        // 6 warps per sub-partition = 24 warps = 2 blocks of 12 warps (shared memory would allow 5)
        assertEquals(2, CudaOccupancy.maxActiveBlocksPerSm(H200, 80, 45056, 0, 384));
    }

    // ---------------------------------------------------------------------------------------------
    // NVIDIA's calculator and glibc's printf as oracles, over many devices and launches
    // ---------------------------------------------------------------------------------------------

    @Test
    void matchesTheReferenceCalculatorOnManyDevicesAndLaunches() throws IOException {
        List<String> rows = lines("oracle_cuda_occupancy.tsv");
        assertTrue(rows.size() > 2000);
        int failures = 0;
        for (String row : rows) {
            String[] cols = row.split("\t");
            String[] in = cols[0].split(" ");
            int[] x = new int[in.length];
            for (int i = 0; i < in.length; i++) {
                x[i] = Integer.parseInt(in[i]);
            }
            DeviceProperties p = new DeviceProperties(0, "oracle", 1L << 34, x[0], x[1], x[2], x[3], x[4], x[6],
                    x[7], x[9], x[5], x[10], x[8]);
            int blockSize = x[14] * x[15] * x[16];
            int active = CudaOccupancy.maxActiveBlocksPerSm(p, x[17], x[18], x[19], blockSize);
            assertEquals(Integer.parseInt(cols[1]), active, row);
            assertEquals(Integer.parseInt(cols[2]), CudaOccupancy.limitingFactors(p, x[17], x[18], x[19], blockSize), row);
            assertEquals(cols[3], FixedDecimal.render(CudaOccupancy.blocksPerSm(p, x[11], x[12], x[13])), row);
            assertEquals(cols[4], FixedDecimal.render(
                    CudaOccupancy.warpsPerSm(p, x[11], x[12], x[13], x[14], x[15], x[16])), row);
            assertEquals(Integer.parseInt(cols[5]), CudaOccupancy.occupancyPercentArg(
                    p, x[11], x[12], x[13], x[14], x[15], x[16], x[17], x[18], x[19]), row);
            if (active == CudaOccupancy.NOT_COMPUTABLE) {
                failures++;
            }
        }
        assertTrue(failures > 0, "the oracle includes calculator failures");
    }

    @Test
    void formatsLikeCPrintfOfTheWidenedFloat() throws IOException {
        for (String line : lines("printf_f_floats.txt")) {
            String[] cols = line.split(" ", 2);
            float value = Float.intBitsToFloat((int) Long.parseLong(cols[0], 16));
            String expected = cols[1].endsWith("inf") ? "\"inf\"" : cols[1];
            assertEquals(expected, FixedDecimal.render(value), line);
        }
    }

    @Test
    void formattingEdgeCases() {
        assertEquals("16.000000", FixedDecimal.render(16f));
        assertEquals("31.030304", FixedDecimal.render(1024 / 132f * 128 / 32)); // float arithmetic, not 31.030303
        assertEquals("0.000000", FixedDecimal.render(0f));
        assertEquals("-0.000000", FixedDecimal.render(-0f));
        assertEquals("-0.000000", FixedDecimal.render(-1e-9f));
        // an exact tie at the sixth decimal goes to even, as glibc does (Java's %f would give 0.007813)
        assertEquals("0.007812", FixedDecimal.render(1f / 128));
        assertNotEquals(String.format("%f", 1.0 / 128), FixedDecimal.render(1f / 128));
        assertEquals("0.023438", FixedDecimal.render(3f / 128));
        assertEquals("1.401299", FixedDecimal.render(1.4012985f));
        assertEquals("100000002004087734272.000000", FixedDecimal.render(1e20f));
        assertEquals("\"inf\"", FixedDecimal.render(Float.POSITIVE_INFINITY));
        assertEquals("\"inf\"", FixedDecimal.render(Float.NEGATIVE_INFINITY));
        StringBuilder sb = new StringBuilder("x=");
        assertEquals("x=1.939394", FixedDecimal.append(sb, 256 / 132f).toString());
    }

    // ---------------------------------------------------------------------------------------------
    // Limiting cases, on the H200 (sm_90: 64 warps, 32 blocks, 64K registers, 228 KiB shared memory)
    // ---------------------------------------------------------------------------------------------

    private static final int MANY_BLOCKS = 132 * 64; // more blocks per SM than can ever be resident

    @Test
    void registerLimited() {
        // 128 regs x 32 = 4096 per warp; 16384 per sub-partition -> 4 warps each, 16 per SM: 2 blocks of 8 warps
        assertEquals(2, CudaOccupancy.maxActiveBlocksPerSm(H200, 128, 0, 0, 256));
        assertEquals(CudaOccupancy.LIMIT_REGISTERS, CudaOccupancy.limitingFactors(H200, 128, 0, 0, 256));
        assertEquals(25, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 256, 1, 1, 128, 0, 0));
        // allocation granularity: 41 regs x 32 = 1312, allocated as 1536 per warp like 48 regs
        assertEquals(CudaOccupancy.maxActiveBlocksPerSm(H200, 48, 0, 0, 128),
                CudaOccupancy.maxActiveBlocksPerSm(H200, 41, 0, 0, 128));
        assertEquals(10, CudaOccupancy.maxActiveBlocksPerSm(H200, 41, 0, 0, 128));
        // 256 registers per thread is the cap; a 257th makes the launch impossible (0, not a failure)
        assertEquals(2, CudaOccupancy.maxActiveBlocksPerSm(H200, 256, 0, 0, 128));
        assertEquals(0, CudaOccupancy.maxActiveBlocksPerSm(H200, 257, 0, 0, 128));
        assertEquals(0, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 128, 1, 1, 257, 0, 0));
        // a block whose registers exceed the per-block register file cannot launch
        assertEquals(0, CudaOccupancy.maxActiveBlocksPerSm(H200, 128, 0, 0, 1024));
    }

    @Test
    void sharedMemoryLimited() {
        // 40000 B + 1 KiB reserved -> 41024, allocated in 128 B units: 41088; 233472 / 41088 = 5 blocks
        assertEquals(5, CudaOccupancy.maxActiveBlocksPerSm(H200, 32, 40000, 0, 128));
        assertEquals(CudaOccupancy.LIMIT_SHARED_MEMORY, CudaOccupancy.limitingFactors(H200, 32, 40000, 0, 128));
        assertEquals(31, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 128, 1, 1, 32, 40000, 0));
        // static and dynamic count alike
        assertEquals(5, CudaOccupancy.maxActiveBlocksPerSm(H200, 32, 0, 40000, 128));
        assertEquals(5, CudaOccupancy.maxActiveBlocksPerSm(H200, 32, 30000, 10000, 128));
        // the default per-block limit is 48 KiB (+ the reserved 1 KiB): 49152 fits, one byte more does not
        assertEquals(4, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 49152, 0, 128));
        assertEquals(0, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 49153, 0, 128));
        assertEquals(0, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 100_000, 128));
        assertEquals(0, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 128, 1, 1, 16, 0, 100_000));
    }

    @Test
    void warpLimited() {
        // 1024 threads = 32 warps of the SM's 64: 2 blocks; 16 regs leave room for 4
        assertEquals(2, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 0, 1024));
        assertEquals(CudaOccupancy.LIMIT_WARPS, CudaOccupancy.limitingFactors(H200, 16, 0, 0, 1024));
        assertEquals(100, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 32, 32, 1, 16, 0, 0));
        // a partial warp occupies a whole warp slot: 33 threads take 2 of 64 slots
        assertEquals(32, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 0, 33));
        assertEquals(21, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 0, 65));
    }

    @Test
    void blockCountLimited() {
        // one-warp blocks: warps allow 64, registers 128, shared memory 228, the hardware 32
        assertEquals(32, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 0, 32));
        assertEquals(CudaOccupancy.LIMIT_BLOCKS, CudaOccupancy.limitingFactors(H200, 16, 0, 0, 32));
        assertEquals(50, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 32, 1, 1, 16, 0, 0));
        assertEquals(32, CudaOccupancy.maxBlocksPerSm(9, 0));
        assertEquals(16, CudaOccupancy.maxBlocksPerSm(8, 6));
        assertEquals(24, CudaOccupancy.maxBlocksPerSm(8, 9));
        assertEquals(24, CudaOccupancy.maxBlocksPerSm(12, 0));
        assertEquals(16, CudaOccupancy.maxBlocksPerSm(7, 5));
        assertEquals(-1, CudaOccupancy.maxBlocksPerSm(13, 0));
    }

    @Test
    void blockTooLarge() {
        // more threads than the device's 1024 per block: zero resident blocks, a computable 0 %
        assertEquals(0, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 0, 1025));
        assertEquals(CudaOccupancy.LIMIT_WARPS, CudaOccupancy.limitingFactors(H200, 16, 0, 0, 1025));
        assertEquals(0, CudaOccupancy.occupancyPercent(H200, MANY_BLOCKS, 1, 1, 32, 32, 2, 16, 0, 0));
        assertEquals(0, CudaOccupancy.occupancyPercentArg(H200, MANY_BLOCKS, 1, 1, 32, 32, 2, 16, 0, 0));
        assertEquals("4096.000000", FixedDecimal.render(
                CudaOccupancy.warpsPerSm(H200, MANY_BLOCKS, 1, 1, 32, 32, 2)));
    }

    @Test
    void oneThreadKernelsCountAFractionOfAWarp() {
        // grid 1, block 1: 1/132 blocks per SM and 1/32 of that in warps, not a whole warp
        assertEquals("0.007576", FixedDecimal.render(CudaOccupancy.blocksPerSm(H200, 1, 1, 1)));
        assertEquals("0.000237", FixedDecimal.render(CudaOccupancy.warpsPerSm(H200, 1, 1, 1, 1, 1, 1)));
        assertEquals(32, CudaOccupancy.maxActiveBlocksPerSm(H200, 8, 0, 0, 1));
        assertEquals(0, CudaOccupancy.occupancyPercentArg(H200, 1, 1, 1, 1, 1, 1, 8, 0, 0));
    }

    @Test
    void notComputable() {
        DeviceProperties unknownArch = withCompute(13, 0);
        assertEquals(-1, CudaOccupancy.maxActiveBlocksPerSm(unknownArch, 16, 0, 0, 128));
        assertEquals(-1f, CudaOccupancy.occupancy(unknownArch, 132, 1, 1, 128, 1, 1, 16, 0, 0));
        assertEquals(CudaOccupancy.NOT_COMPUTABLE, CudaOccupancy.occupancyPercent(unknownArch, 132, 1, 1, 128, 1, 1, 16, 0, 0));
        assertEquals(CudaOccupancy.TRACE_PERCENT_NOT_COMPUTABLE,
                CudaOccupancy.occupancyPercentArg(unknownArch, 132, 1, 1, 128, 1, 1, 16, 0, 0));
        assertEquals(-99, CudaOccupancy.TRACE_PERCENT_NOT_COMPUTABLE);
        // an unsupported minor of a known major (no shared memory configuration table)
        assertEquals(-1, CudaOccupancy.maxActiveBlocksPerSm(withCompute(10, 2), 16, 0, 0, 128));
        // an empty block
        assertEquals(-1, CudaOccupancy.maxActiveBlocksPerSm(H200, 16, 0, 0, 0));
        assertEquals(-99, CudaOccupancy.occupancyPercentArg(H200, 132, 1, 1, 0, 1, 1, 16, 0, 0));
        // more shared memory per SM than any sm_90 carve-out
        DeviceProperties oddSmem = new DeviceProperties(0, "x", 1L, 9, 0, 1024, 2048, 65536, 32, 49152, 132,
                65536, 232448, 240000);
        assertEquals(-1, CudaOccupancy.maxActiveBlocksPerSm(oddSmem, 16, 0, 0, 128));
        // no SMs: the per-SM figures are infinite and kineto prints "inf"
        DeviceProperties noSms = new DeviceProperties(0, "x", 1L, 9, 0, 1024, 2048, 65536, 32, 49152, 0,
                65536, 232448, 233472);
        assertEquals("\"inf\"", FixedDecimal.render(CudaOccupancy.blocksPerSm(noSms, 4, 1, 1)));
        assertEquals("\"inf\"", FixedDecimal.render(CudaOccupancy.warpsPerSm(noSms, 4, 1, 1, 32, 1, 1)));
        assertEquals(-99, CudaOccupancy.occupancyPercentArg(noSms, 4, 1, 1, 32, 1, 1, 16, 0, 0));
    }

    @Test
    void architectureTable() {
        assertEquals(1024, CudaOccupancy.reservedSharedMemoryPerBlock(9));
        assertEquals(1024, CudaOccupancy.reservedSharedMemoryPerBlock(8));
        assertEquals(0, CudaOccupancy.reservedSharedMemoryPerBlock(7));
    }

    @Test
    void doesNotAllocate() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        StringBuilder sb = new StringBuilder(64);
        long sink = 0;
        for (int warm = 0; warm < 2; warm++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                int regs = i & 255;
                sink += CudaOccupancy.maxActiveBlocksPerSm(H200, regs, i & 0xffff, 0, 1 + (i & 1023));
                sink += CudaOccupancy.occupancyPercentArg(H200, i, 1, 1, 1 + (i & 1023), 1, 1, regs, 0, i & 0x3fff);
                sb.setLength(0);
                FixedDecimal.append(sb, CudaOccupancy.warpsPerSm(H200, i, 2, 1, 1 + (i & 1023), 1, 1));
                sink += sb.length();
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (warm == 1) {
                assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes in 100k calls");
            }
        }
        assertTrue(sink != 0);
    }

    // ---------------------------------------------------------------------------------------------

    private static DeviceProperties withCompute(int major, int minor) {
        return new DeviceProperties(H200.id(), H200.name(), H200.totalGlobalMem(), major, minor,
                H200.maxThreadsPerBlock(), H200.maxThreadsPerMultiprocessor(), H200.regsPerBlock(), H200.warpSize(),
                H200.sharedMemPerBlock(), H200.numSms(), H200.regsPerMultiprocessor(), H200.sharedMemPerBlockOptin(),
                H200.sharedMemPerMultiprocessor());
    }

    private static DeviceProperties loadH200() {
        try (InputStream in = resource("h200_device_properties.json")) {
            JsonNode n = new ObjectMapper().readTree(in);
            return new DeviceProperties(n.get("id").asInt(), n.get("name").asText(), n.get("totalGlobalMem").asLong(),
                    n.get("computeMajor").asInt(), n.get("computeMinor").asInt(), n.get("maxThreadsPerBlock").asInt(),
                    n.get("maxThreadsPerMultiprocessor").asInt(), n.get("regsPerBlock").asInt(),
                    n.get("warpSize").asInt(), n.get("sharedMemPerBlock").asLong(), n.get("numSms").asInt(),
                    n.get("regsPerMultiprocessor").asInt(), n.get("sharedMemPerBlockOptin").asLong(),
                    n.get("sharedMemPerMultiprocessor").asLong());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static InputStream resource(String name) {
        InputStream in = CudaOccupancyTest.class.getResourceAsStream("/occupancy/" + name);
        if (in == null) {
            throw new IllegalStateException("missing test resource occupancy/" + name);
        }
        return in;
    }

    /** The resource's lines, without '#' comments and blank lines. */
    private static List<String> lines(String name) throws IOException {
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(resource(name), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    out.add(line);
                }
            }
        }
        return out;
    }

    private static int intArg(String event, String key) {
        Matcher m = INT_ARG.matcher(event);
        while (m.find()) {
            if (m.group(1).equals(key)) {
                return Integer.parseInt(m.group(2));
            }
        }
        throw new AssertionError("no " + key + " in " + event);
    }

    private static String textArg(String event, String key) {
        Matcher m = TEXT_ARG.matcher(event);
        while (m.find()) {
            if (m.group(1).equals(key)) {
                return m.group(2);
            }
        }
        throw new AssertionError("no " + key + " in " + event);
    }

    private static int[] dims(String event, String key) {
        Matcher m = DIMS_ARG.matcher(event);
        while (m.find()) {
            if (m.group(1).equals(key)) {
                return new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4))};
            }
        }
        throw new AssertionError("no " + key + " in " + event);
    }
}
