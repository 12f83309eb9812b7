package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.report.DeviceWorkKind;
import org.flagos.trace.report.RankTimes;
import org.flagos.trace.sql.CollectiveKernels;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Communication is a collective library's kernel, told by the library's prefix, never by a
 * collective's word inside a name: the one rule ({@link CollectiveKernels}) gives the same answer in
 * Java (summaries, report) and in SQL (the analyses, on DuckDB here), on real kernel names.
 */
class CommunicationRuleTest {
    /**
     * Kernels with "broadcast" in their name, in the forms PyTorch's CUDA loops give them (the
     * elementwise kernel templated on a lambda of {@code type_specialized_broadcast_kernel_launcher},
     * from ATen's CUDALoops.cuh; a vectorized elementwise kernel of a broadcasting functor) and a
     * CUTLASS GEMM with a broadcast epilogue: all computation, as HTA and TraceLens count them. No real
     * trace bundled here has one, so the names are written in those forms. Before the fix all three
     * were communication.
     */
    static final List<String> BROADCAST_COMPUTE = List.of(
            "void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::detail::type_specialized_broadcast_kernel_launcher<0>"
                    + "::apply<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
                    + "std::array<char*, 3ul>, std::array<c10::ScalarType, 3ul>, OffsetCalculator<3, unsigned int, false> >"
                    + "(long, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
                    + "std::array<char*, 3ul>, std::array<c10::ScalarType, 3ul>, OffsetCalculator<3, unsigned int, false>)"
                    + "::{lambda(int, bool)#1}>(long, at::native::detail::type_specialized_broadcast_kernel_launcher<0>::apply<"
                    + "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
                    + "std::array<char*, 3ul>, std::array<c10::ScalarType, 3ul>, OffsetCalculator<3, unsigned int, false> >"
                    + "(long, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
                    + "std::array<char*, 3ul>, std::array<c10::ScalarType, 3ul>, OffsetCalculator<3, unsigned int, false>)"
                    + "::{lambda(int, bool)#1})",
            "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::broadcast_add_kernel_functor<float>, "
                    + "std::array<char*, 3ul> >(int, at::native::(anonymous namespace)::broadcast_add_kernel_functor<float>, std::array<char*, 3ul>)",
            "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_f16_256x128_32x3_nn_align8_EpilogueWithBroadcast>");

    /**
     * Collective library kernels, as the libraries name them: NCCL's (a real name from HTA's
     * nccl_data test trace, MIT licence, and the device kernel names of NCCL 2.19+), RCCL's on ROCm
     * (the same names), with the {@code void } a demangler puts before them.
     */
    static final List<String> COLLECTIVES = List.of(
            "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
            "void ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
            "hcclAllReduce_kernel", "mcclKernel_AllReduce_RING_LL_Sum_float", "ecclAllGather");

    static Path reference() throws URISyntaxException {
        return Path.of(CommunicationRuleTest.class.getResource("/torch-reference/torch_trace.json").toURI());
    }

    /** The kernel names of the real H200 reference trace (torch 2.x, one GPU, no NCCL). */
    static Set<String> referenceKernels() throws Exception {
        Set<String> names = new LinkedHashSet<>();
        for (JsonNode e : new ObjectMapper().readTree(reference().toFile()).get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                names.add(e.get("name").asText());
            }
        }
        return names;
    }

    @Test
    void javaAndSqlTellTheSameKernelsApart() throws Exception {
        Set<String> compute = new LinkedHashSet<>(referenceKernels());
        assertEquals(9, compute.size(), "distinct kernel names of the reference trace");
        compute.addAll(BROADCAST_COMPUTE);
        List<String> all = new ArrayList<>(compute);
        all.addAll(COLLECTIVES);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            for (String name : all) {
                boolean comm = COLLECTIVES.contains(name);
                assertEquals(comm ? DeviceWorkKind.COMMUNICATION : DeviceWorkKind.COMPUTATION, DeviceWorkKind.of("kernel", name), name);
                try (PreparedStatement s = c.prepareStatement("SELECT " + CollectiveKernels.sqlPredicate("name") + " FROM (SELECT ? AS name) t")) {
                    s.setString(1, name);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        assertEquals(comm, rs.getBoolean(1), "SQL, " + name);
                    }
                }
            }
        }
    }

    /**
     * The real H200 reference trace with one of its elementwise kernels renamed as PyTorch's
     * broadcast elementwise kernel: no communication in the summary's split nor in rank_device;
     * renamed as an NCCL kernel instead, that kernel's time is communication in both.
     */
    @Test
    void aBroadcastElementwiseKernelIsComputationInSummaryAndSql(@TempDir Path dir) throws Exception {
        String fill = null;
        for (String k : referenceKernels()) {
            if (k.contains("FillFunctor")) {
                fill = k;
            }
        }
        assertTrue(fill != null);
        for (String renamed : List.of(BROADCAST_COMPUTE.get(0), COLLECTIVES.get(0))) {
            boolean comm = COLLECTIVES.contains(renamed);
            ObjectMapper json = new ObjectMapper();
            ObjectNode trace = (ObjectNode) json.readTree(reference().toFile());
            long kernelNs = 0;
            for (JsonNode e : trace.get("traceEvents")) {
                if ("kernel".equals(e.path("cat").asText()) && fill.equals(e.get("name").asText())) {
                    ((ObjectNode) e).put("name", renamed);
                    kernelNs += Math.round(e.get("dur").asDouble() * 1000);
                }
            }
            assertTrue(kernelNs > 0);
            Path sub = Files.createDirectories(dir.resolve(comm ? "nccl" : "broadcast"));
            Path file = sub.resolve("trace.json");
            json.writeValue(file.toFile(), trace);
            CliRunner cli = new CliRunner();
            Path merged = sub.resolve("merged.json");
            assertEquals(0, cli.run("merge", file.toString(), "-o", merged.toString()), cli.stderr());
            RankTimes.Rank java = RankTimes.read(merged).ranks().get(0);
            assertEquals(comm ? kernelNs : 0, java.communicationNs(), renamed);
            Path events = sub.resolve("events.parquet");
            assertEquals(0, cli.run("tables", file.toString(), "-o", events.toString()), cli.stderr());
            try (DuckDbAnalyses duck = DuckDbAnalyses.open(events)) {
                ResultTable t = duck.run("rank_device");
                assertEquals(1, t.rows().size());
                Map<String, Object> row = new java.util.HashMap<>();
                for (int i = 0; i < t.columns().size(); i++) {
                    row.put(t.columns().get(i), t.rows().get(0).get(i));
                }
                assertEquals(java.communicationNs(), row.get("communication_ns"), renamed);
                assertEquals(java.computationNs(), row.get("computation_ns"), renamed);
            }
        }
    }
}
