package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * {@link DeviceWorkKind}: device work is told by category first (a copy or set of either schema is memory, whatever
 * its name), and only a kernel is asked the communication rule of its name; host events and unknown categories are
 * no device work at all.
 */
class DeviceWorkKindTest {
    private static final String NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

    @Test
    void copiesAndSetsOfBothSchemasAreMemoryWhateverTheirName() {
        for (String cat : new String[] {"gpu_memcpy", "gpu_memset", "Memcpy", "Memset"}) {
            assertEquals(DeviceWorkKind.MEMORY, DeviceWorkKind.of(cat, "Memcpy HtoD (Pageable -> Device)"), cat);
            assertEquals(DeviceWorkKind.MEMORY, DeviceWorkKind.of(cat, NCCL), cat + ": a collective's name does not make a copy communication");
        }
    }

    @Test
    void aKernelOfEitherSchemaIsCommunicationOnlyByItsLibrarysPrefix() {
        for (String cat : new String[] {"kernel", "Kernel"}) {
            assertEquals(DeviceWorkKind.COMMUNICATION, DeviceWorkKind.of(cat, NCCL), cat);
            assertEquals(DeviceWorkKind.COMMUNICATION, DeviceWorkKind.of(cat, "void ncclKernel_SendRecv(ncclWorkElem)"), cat);
            assertEquals(DeviceWorkKind.COMMUNICATION, DeviceWorkKind.of(cat, "HCCL_AllReduce_kernel"), cat);
            assertEquals(DeviceWorkKind.COMPUTATION, DeviceWorkKind.of(cat,
                    "void at::native::elementwise_kernel<128, 4, at::native::detail::type_specialized_broadcast_kernel_launcher<0>>"),
                    cat + ": broadcast inside a name is computation");
            assertEquals(DeviceWorkKind.COMPUTATION, DeviceWorkKind.of(cat, "sm90_xmma_gemm_bf16bf16_bf16f32"), cat);
        }
    }

    @Test
    void hostEventsAndOtherCategoriesAreNoDeviceWork() {
        for (String cat : new String[] {"cpu_op", "cuda_runtime", "cuda_driver", "overhead", "gpu_user_annotation", "Trace", "KERNEL"}) {
            assertNull(DeviceWorkKind.of(cat, NCCL), cat);
        }
        assertNull(DeviceWorkKind.of(null, NCCL), "no category");
    }
}
