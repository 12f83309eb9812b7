package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link CollectiveKernels}' own rules, beside the Java-against-SQL agreement the CLI tests check: a library's prefix
 * only at the start (after {@code void }), any case; the longer kind words win over the shorter ones they contain
 * ({@code reducescatter} over {@code reduce}, {@code sendrecv} over {@code send}); only kernels of either schema are
 * collectives; and the SQL builders refuse anything that is not a column, the expander an unclosed marker.
 */
class CollectiveKernelsTest {
    @Test
    void aLibrarysPrefixCountsOnlyAtTheStartAfterAnOptionalVoid() {
        assertTrue(CollectiveKernels.isCommunication("NCCLDEVKERNEL_ALLREDUCE"), "any case");
        assertTrue(CollectiveKernels.isCommunication("void ncclKernel_SendRecv(ncclWorkElem)"));
        assertTrue(CollectiveKernels.isCommunication("eccl_all_gather"));
        assertFalse(CollectiveKernels.isCommunication("my_ncclDevKernel_copy"), "a prefix inside a name");
        assertFalse(CollectiveKernels.isCommunication("void  ncclKernel_SendRecv"), "void and one blank only");
        assertFalse(CollectiveKernels.isCommunication("voidncclKernel"));
        assertFalse(CollectiveKernels.isCommunication(""));
    }

    @Test
    void theLongerKindWordWinsOverTheShorterItHolds() {
        assertEquals("reduce_scatter", CollectiveKernels.kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"));
        assertEquals("reduce_scatter", CollectiveKernels.kind("hccl_reduce_scatter"), "underscores are read past");
        assertEquals("send_recv", CollectiveKernels.kind("ncclKernel_SendRecv"));
        assertEquals("all_reduce", CollectiveKernels.kind("NCCLDEVKERNEL_ALL_REDUCE_SUM"));
        assertEquals("reduce", CollectiveKernels.kind("ncclDevKernel_Reduce_Sum_f32"));
        assertEquals("send", CollectiveKernels.kind("ncclDevKernel_Send"));
        assertEquals("other", CollectiveKernels.kind("ncclDevKernel_Generic_4"));
    }

    @Test
    void onlyKernelsOfEitherSchemaAreCollectives() {
        assertTrue(CollectiveKernels.isCollectiveKernel("kernel", "ncclDevKernel_AllGather_RING_LL"));
        assertTrue(CollectiveKernels.isCollectiveKernel("Kernel", "ncclDevKernel_AllGather_RING_LL"), "torch 1.8-1.9's category");
        assertFalse(CollectiveKernels.isCollectiveKernel("KERNEL", "ncclDevKernel_AllGather_RING_LL"));
        assertFalse(CollectiveKernels.isCollectiveKernel("cuda_runtime", "ncclDevKernel_AllGather_RING_LL"));
        assertFalse(CollectiveKernels.isCollectiveKernel(null, "ncclDevKernel_AllGather_RING_LL"));
        assertFalse(CollectiveKernels.isCollectiveKernel("kernel", null));
        assertFalse(CollectiveKernels.isCollectiveKernel("kernel", "sm90_xmma_gemm"));
    }

    @Test
    void theVerdictsKeptPerNameAreTheRulesAndStayWithinTheirBound() {
        CollectiveKernels.Verdicts verdicts = new CollectiveKernels.Verdicts(3);
        String[] names = {"ncclDevKernel_AllGather_RING_LL", "sm90_xmma_gemm", "VOID HCCL_ALLREDUCE", "void  ncclKernel_SendRecv",
                "my_ncclDevKernel_copy", "eccl_all_gather", "", "Rccl_x"};
        String[] cats = {"kernel", "Kernel", "KERNEL", "cuda_runtime", null};
        for (int round = 0; round < 3; round++) { // the first round asks the rule, the others read what was kept (3 names at most)
            for (String cat : cats) {
                for (String name : names) {
                    assertEquals(CollectiveKernels.isCollectiveKernel(cat, name), verdicts.isCollectiveKernel(cat, name), cat + " " + name);
                    assertEquals(CollectiveKernels.isCollectiveKernel(cat, name), verdicts.isCollectiveKernel(cat, new String(name)),
                            "another string of the same name");
                }
                assertFalse(verdicts.isCollectiveKernel(cat, null));
            }
            assertEquals(3, verdicts.size(), "as many names as the bound, no more");
        }
    }

    @Test
    void theSqlBuildersTakeAColumnAndNothingElse() {
        assertEquals("(LOWER(e.name) LIKE 'nccl%' OR LOWER(e.name) LIKE 'void nccl%' OR LOWER(e.name) LIKE 'rccl%' OR "
                + "LOWER(e.name) LIKE 'void rccl%' OR LOWER(e.name) LIKE 'hccl%' OR LOWER(e.name) LIKE 'void hccl%' OR "
                + "LOWER(e.name) LIKE 'mccl%' OR LOWER(e.name) LIKE 'void mccl%' OR LOWER(e.name) LIKE 'eccl%' OR "
                + "LOWER(e.name) LIKE 'void eccl%')", CollectiveKernels.sqlPredicate("e.name"));
        for (String bad : new String[] {"name; DROP TABLE t", "1name", "a.b.c", "name)", "'x'", ""}) {
            assertEquals("not a column: " + bad, assertThrows(IllegalArgumentException.class, () -> CollectiveKernels.sqlPredicate(bad)).getMessage());
            assertEquals("not a column: " + bad, assertThrows(IllegalArgumentException.class, () -> CollectiveKernels.kindSql(bad)).getMessage());
            assertEquals("not a column: " + bad,
                    assertThrows(IllegalArgumentException.class, () -> CollectiveKernels.elementBytesSql(bad)).getMessage());
        }
        assertTrue(CollectiveKernels.elementBytesSql("dtype").startsWith("(CASE WHEN dtype = 'Byte' THEN 1 WHEN"));
        assertTrue(CollectiveKernels.elementBytesSql("dtype").endsWith(" WHEN dtype = 'ComplexDouble' THEN 16 END)"),
                "no ELSE: an unknown dtype is NULL");
    }

    @Test
    void theExpanderReplacesEveryMarkerAndRefusesAnUnclosedOne() {
        String sql = "SELECT flagtrace_collective_kind( name ) FROM k WHERE flagtrace_is_communication(name) AND "
                + "flagtrace_element_bytes(dtype) > 1";
        assertEquals("SELECT " + CollectiveKernels.kindSql("name") + " FROM k WHERE " + CollectiveKernels.sqlPredicate("name")
                + " AND " + CollectiveKernels.elementBytesSql("dtype") + " > 1", CollectiveKernels.expand(sql));
        assertEquals("SELECT 1", CollectiveKernels.expand("SELECT 1"));
        assertEquals("unclosed flagtrace_is_communication( in an analysis",
                assertThrows(IllegalStateException.class, () -> CollectiveKernels.expand("SELECT flagtrace_is_communication(name")).getMessage());
    }
}
