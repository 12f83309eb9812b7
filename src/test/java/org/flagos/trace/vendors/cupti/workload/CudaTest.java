package org.flagos.trace.vendors.cupti.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.bytedeco.javacpp.FloatPointer;
import org.junit.jupiter.api.Test;

/**
 * The workload's kernel launch boxes each argument into the holder its parameter needs and refuses,
 * before any CUDA call (so without a GPU), an argument of another type, naming its position and type.
 */
class CudaTest {
    @Test
    void anArgumentOfAnotherTypeIsRefusedBeforeTheLaunch() {
        FloatPointer device = new FloatPointer(1);
        assertEquals("kernel argument 4 is a String", assertThrows(IllegalArgumentException.class,
                () -> Cuda.launch(null, 1, 1, null, device, 1, 2L, 3f, "x")).getMessage());
        assertEquals("kernel argument 0 is a Double", assertThrows(IllegalArgumentException.class,
                () -> Cuda.launch(null, 1, 1, null, 1.0)).getMessage(), "a double is not a float parameter");
        assertEquals("kernel argument 1 is a Short", assertThrows(IllegalArgumentException.class,
                () -> Cuda.launch(null, 1, 1, null, 1, (short) 2)).getMessage());
    }
}
