package org.flagos.trace.stages.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The demangler against GNU c++filt. {@code demangle/golden.tsv} holds one symbol per line and,
 * after a tab, what {@code c++filt} (binutils 2.40) printed for it when the file was made; the
 * test itself never runs c++filt. The symbols are the CUPTI fixture kernels, torch-shaped kernels
 * rebuilt with nvcc (their c++filt text equals the names in the torch reference trace), CUB/thrust
 * kernels and nvcc host stubs, g++ output for a file of C++ corner cases, hand-written grammar
 * corners, and names c++filt leaves alone.
 */
class ItaniumDemanglerTest {

    private record Golden(String mangled, String expected) {
    }

    private static List<Golden> golden() {
        List<Golden> rows = new ArrayList<>();
        try (InputStream in = ItaniumDemanglerTest.class.getResourceAsStream("/demangle/golden.tsv")) {
            assertNotNull(in, "demangle/golden.tsv on the test classpath");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty()) {
                    continue;
                }
                int tab = line.indexOf('\t');
                assertTrue(tab > 0, "malformed golden line: " + line);
                rows.add(new Golden(line.substring(0, tab), line.substring(tab + 1)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    static Stream<Arguments> goldenRows() {
        return golden().stream().map(g -> Arguments.of(g.mangled(), g.expected()));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("goldenRows")
    void matchesCxxfilt(String mangled, String expected) {
        assertEquals(expected, ItaniumDemangler.demangle(mangled));
    }

    @Test
    void goldenCoversTheCuptiKernels() {
        List<Golden> rows = golden();
        assertTrue(rows.size() >= 60, "golden corpus has " + rows.size() + " lines");
        assertTrue(rows.contains(new Golden("_Z4reluPfi", "relu(float*, int)")));
        assertTrue(rows.contains(new Golden("_Z4tinyPf", "tiny(float*)")));
        assertEquals(
                "void cub::CUB_300001_SM_900::detail::radix_sort::DeviceRadixSortExclusiveSumKernel<"
                        + "cub::CUB_300001_SM_900::detail::radix::policy_hub<float, "
                        + "cub::CUB_300001_SM_900::NullType, unsigned long long>::Policy1000, "
                        + "unsigned long long>(unsigned long long*)",
                ItaniumDemangler.demangle("_ZN3cub17CUB_300001_SM_9006detail10radix_sort"
                        + "33DeviceRadixSortExclusiveSumKernelINS1_5radix10policy_hubIfNS0_8NullTypeEyE"
                        + "10Policy1000EyEEvPT0_"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4"
                + "_alignc4_execute_kernel__5x_cublas",
        "ampere_sgemm_128x64_nn",
        "",
        "main",
        "Z4reluPfi",
        "__Z4reluPfi",
        "_z4reluPfi",
        "_R4reluPfi",
        "_GLOBAL__sub_I_kernels.cu",
        "void relu(float*, int)",
        "relu(float*, int)",
    })
    void nonMangledNamesPassThrough(String name) {
        assertEquals(name, ItaniumDemangler.demangle(name));
    }

    @Test
    void nullPassesThrough() {
        assertNull(ItaniumDemangler.demangle(null));
    }

    @Test
    void truncatedNamesAreReturnedUnchangedOrDemangled() {
        for (Golden g : golden()) {
            String m = g.mangled();
            for (int len = 0; len < m.length(); len++) {
                String prefix = m.substring(0, len);
                String out = ItaniumDemangler.demangle(prefix);
                assertNotNull(out, prefix);
                if (!prefix.startsWith("_Z")) {
                    assertEquals(prefix, out);
                }
            }
        }
        // c++filt cannot parse these either, so they come back as they were.
        for (String s : new String[] {"_Z", "_Z4", "_Z4reluP", "_ZN3cub", "_Z4reluPfi_", "_Z4reluPfiE",
                "_ZN3cub17CUB_300001_SM_900",
                "_ZN3cub17CUB_300001_SM_9006detail10radix_sort29DeviceRadixSortOnesweepKernelI"}) {
            assertEquals(s, ItaniumDemangler.demangle(s));
        }
        // ...while a prefix can itself be a complete name, as c++filt agrees.
        assertEquals("relu", ItaniumDemangler.demangle("_Z4relu"));
        assertEquals("relu(float*)", ItaniumDemangler.demangle("_Z4reluPf"));
    }

    @Test
    void randomMutationsNeverThrow() {
        List<Golden> rows = golden();
        String alphabet = "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.$";
        String[] tokens = {"S_", "S0_", "T_", "T0_", "I", "J", "E", "N", "Z", "L", "X", "Dp", "DT",
            "Ul", "Ut_", "K", "R", "O", "P", "F", "A3_", "M", "St", "Sa", "fp_", "sr", "cv", "B3tag",
            "W3mod", "Li1E", "\u0000", "\u00e9", "9999999999", "n"};
        Random rnd = new Random(20240601L);
        for (int i = 0; i < 40_000; i++) {
            String base = rows.get(rnd.nextInt(rows.size())).mangled();
            StringBuilder s = new StringBuilder(base);
            int edits = 1 + rnd.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = s.length() == 0 ? 0 : rnd.nextInt(s.length() + 1);
                switch (rnd.nextInt(5)) {
                    case 0 -> s.setLength(at);
                    case 1 -> {
                        if (at < s.length()) {
                            s.deleteCharAt(at);
                        }
                    }
                    case 2 -> s.insert(at, alphabet.charAt(rnd.nextInt(alphabet.length())));
                    case 3 -> s.insert(at, tokens[rnd.nextInt(tokens.length)]);
                    default -> {
                        int end = Math.min(s.length(), at + rnd.nextInt(20));
                        s.insert(at, s.substring(Math.min(at, end), end));
                    }
                }
            }
            String in = s.toString();
            try {
                assertNotNull(ItaniumDemangler.demangle(in));
            } catch (RuntimeException | Error e) {
                fail("demangle threw on " + in, e);
            }
        }
    }

    /** Inputs built to nest deeply or to explode through substitutions finish, on a small stack. */
    @Test
    void hostileInputIsBounded() throws InterruptedException {
        List<String> hostile = new ArrayList<>();
        hostile.add("_Z1f" + "P".repeat(100_000) + "i");
        hostile.add("_Z1f" + "K".repeat(100_000) + "i");
        hostile.add("_ZN" + "1a".repeat(50_000) + "E");
        hostile.add("_ZN1A" + "rVK".repeat(30_000) + "1fEv");
        hostile.add("_Z1f" + "A1_".repeat(50_000) + "i");
        hostile.add("_Z" + "Z".repeat(50_000) + "1fv");
        hostile.add("_Z1f" + "PF".repeat(50_000) + "v");
        hostile.add("_Z1fI" + "I".repeat(50_000) + "iE");
        hostile.add("_Z1f" + "W3foo".repeat(50_000) + "1A");
        hostile.add("_Z1fDT" + "pl".repeat(50_000) + "fp_fp_E");
        hostile.add("_Z1fDT" + "sr".repeat(50_000) + "T_1aE");
        hostile.add("_Z1fDT" + "sr1a".repeat(20_000) + "E1bE");
        hostile.add("_Z1f" + "Dp".repeat(50_000) + "T_");
        hostile.add("_ZN1aC1E" + "S_".repeat(5_000));
        hostile.add("_Z1fIJ" + "i".repeat(5_000) + "EEv" + "DpT_".repeat(500));
        hostile.add("_ZN1AcvT_" + "IT_".repeat(60) + "E".repeat(60) + "Ev");
        // Each level names the previous one twice: the output would double per level.
        StringBuilder bomb = new StringBuilder("_Z1f1a");
        for (int i = 0; i < 40; i++) {
            String prev = i == 0 ? "S_" : "S" + Integer.toString(2 * i - 1, 36).toUpperCase() + "_";
            bomb.append("1bI").append(prev).append(prev).append('E');
        }
        hostile.add(bomb.toString());

        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(null, () -> {
            try {
                for (String h : hostile) {
                    assertNotNull(ItaniumDemangler.demangle(h));
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "demangle-small-stack", 256 * 1024);
        long start = System.nanoTime();
        worker.start();
        worker.join(60_000);
        assertTrue(!worker.isAlive(), "hostile inputs still running after 60s");
        if (failure.get() != null) {
            fail("hostile input", failure.get());
        }
        assertTrue(System.nanoTime() - start < 30_000_000_000L, "hostile inputs took over 30s");
    }

    @Test
    void clonedFunctionsKeepTheirSuffix() {
        assertEquals("relu(float*, int) [clone .cold]", ItaniumDemangler.demangle("_Z4reluPfi.cold"));
    }
}
