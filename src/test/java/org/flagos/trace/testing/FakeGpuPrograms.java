package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Unchanged C programs built against a vendor's fake libraries, as a user without a GPU would build
 * them: {@code scripts/fake-gpu-env VENDOR}'s exports, then the machine's C compiler.
 */
public final class FakeGpuPrograms {
    private FakeGpuPrograms() {
    }

    /**
     * Builds {@code source} (under src/test/native) into {@code out} with the fakes of {@code vendor},
     * linked with {@code libraries} (cc's {@code -l} words); fails the test with the compiler's output.
     */
    public static Path build(String vendor, String source, Path out, String libraries) throws IOException, InterruptedException {
        Process cc = new ProcessBuilder("sh", "-c", "eval \"$(scripts/fake-gpu-env " + vendor + ")\" && cc -O1 -Wall -Werror -o "
                + out + " src/test/native/" + source + " " + libraries).redirectErrorStream(true).start();
        String output = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(120, TimeUnit.SECONDS) && cc.exitValue() == 0, "building " + source + ": " + output);
        return out;
    }
}
