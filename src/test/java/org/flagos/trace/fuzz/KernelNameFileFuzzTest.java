package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.KernelNameFile;

/**
 * Fuzz target: a {@code .names.tsv} kernel name table through {@link KernelNameFile#read(Path)}
 * (a scratch file under {@code target/}). Bad content must be a {@link CaptureFormatException}.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/KernelNameFileFuzzTestInputs/read/}.
 */
class KernelNameFileFuzzTest {
    private static final Path FILE = FuzzScratch.file("fuzz.names.tsv");

    @FuzzTest(maxDuration = "3m")
    void read(byte[] file) {
        KernelNameFile names;
        try {
            names = KernelNameFile.read(FuzzScratch.write(FILE, file));
        } catch (CaptureFormatException | UncheckedIOException expected) {
            return;
        }
        if (names.size() < 0 || names.lookup(0) != null && names.size() == 0) {
            throw new IllegalStateException("inconsistent name table");
        }
    }
}
