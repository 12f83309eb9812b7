package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Names cut for the compact table's 40-column name: kernels stay told apart where their function names differ. */
class ShortNamesTest {
    private static final String HISTOGRAM = "void cub::CUB_300001_SM_900::detail::radix_sort::DeviceRadixSortHistogramKernel<"
            + "cub::CUB_300001_SM_900::detail::radix::policy_hub<float, cub::CUB_300001_SM_900::NullType, unsigned long long>"
            + "::Policy1000, (cub::CUB_300001_SM_900::SortOrder)0, float, unsigned long long>(unsigned long long*, float const*)";
    private static final String ONESWEEP = HISTOGRAM.replace("DeviceRadixSortHistogramKernel", "DeviceRadixSortOnesweepKernel");

    @Test
    void aNameThatFitsIsKept() {
        assertEquals("relu(float*, int)", ShortNames.fit("relu(float*, int)", 40));
        assertEquals("x".repeat(40), ShortNames.fit("x".repeat(40), 40));
    }

    @Test
    void aLongCppNameKeepsItsFunctionName() {
        assertEquals("DeviceRadixSortHistogramKernel<>()", ShortNames.fit(HISTOGRAM, 40));
        assertEquals("radix_sort::DeviceRadixSortHistogramKernel<>()", ShortNames.fit(HISTOGRAM, 50), "namespaces go only as needed");
        assertNotEquals(ShortNames.fit(HISTOGRAM, 40), ShortNames.fit(ONESWEEP, 40));
    }

    @Test
    void namesThatWouldPrintAlikeShowWhereTheyDiffer() {
        String kernel = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";
        String splitK = kernel.replace("execute_kernel", "execute_split_k_kernel");
        String fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int,"
                + " at::native::FillFunctor<float>, std::array<char*, 1ul>)";
        String add = fill.replace("FillFunctor", "CUDAFunctorOnSelf_add");
        java.util.List<String> shown = ShortNames.fitAll(java.util.List.of(kernel, splitK, fill, add, "relu(float*, int)", "relu(float*, int)"), 40);
        assertEquals(6, shown.size());
        assertEquals(5, new java.util.HashSet<>(shown).size(), "different names print differently; the same name alike: " + shown);
        for (String s : shown) {
            assertTrue(s.length() <= 40, s);
        }
        assertTrue(shown.get(1).contains("split_k"), shown.get(1));
        assertTrue(shown.get(2).contains("Fill") && shown.get(3).contains("CUDAFunctorOn"), shown.toString());
        assertTrue(shown.get(0).startsWith("sm80_xmma_gem") && shown.get(2).startsWith("vectorized_"), shown.toString());
    }

    @Test
    void anythingElseIsCutAtTheEndWithinTheWidth() {
        String gemm = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel";
        assertEquals(gemm.substring(0, 37) + "...", ShortNames.fit(gemm, 40));
        String pathological = "a<" + "b::".repeat(30) + ">::f(" + "(".repeat(20); // unbalanced: still fits
        assertTrue(ShortNames.fit(pathological, 40).length() <= 40);
        assertTrue(ShortNames.fit("operator<<::x::" + "y".repeat(60), 40).length() <= 40);
        assertEquals("native::fill_reverse_indices_kernel<>()", ShortNames.fit("void at::native::(anonymous namespace)::"
                + "fill_reverse_indices_kernel<long>(long*, int, at::cuda::detail::IntDivider<unsigned int>)", 40));
    }
}
