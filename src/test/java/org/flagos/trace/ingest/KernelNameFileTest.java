package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A capture's kernel name table ({@code NAME.names.tsv}): 0x handle, tab, name; comments and blank lines skipped. */
class KernelNameFileTest {
    @TempDir
    Path dir;

    @Test
    void theBundledTableHoldsTheNamesOfEveryKernelCuptiReported() {
        KernelNameFile table = KernelNameFile.read(Captures.names("h200-app"));
        assertEquals(6, table.size(), "the six data lines (two comment lines)");
        assertEquals("_Z4reluPfi", table.lookup(0x5622d22bc6e0L));
        assertNull(table.lookup(0x5622d22bc6e1L));
        Set<String> kernelNames = new HashSet<>();
        for (JsonNode t : TruthRecord.read(Captures.truth("h200-app"))) {
            if (t.get("kind").asText().equals("kernel")) {
                kernelNames.add(t.get("name").asText());
            }
        }
        assertEquals(kernelNames, new HashSet<>(table.entries().values()), "CUPTI's own decoding names the same kernels");
        assertEquals(Captures.names("h200-app"), KernelNameFile.besides(Captures.capture("h200-app")));
    }

    @Test
    void handlesAreUnsignedHexAndARepeatedIdenticalLineIsFine() throws Exception {
        KernelNameFile table = KernelNameFile.read(file("# comment\n\n0xffffffffffffff00\tk_high\n0x10\tname with\ttab\n0x10\tname with\ttab\n"));
        assertEquals(2, table.size());
        assertEquals("k_high", table.lookup(0xffffffffffffff00L));
        assertEquals("name with\ttab", table.lookup(0x10), "the name is everything after the first tab");
    }

    @Test
    void aBadLineIsRefusedWithItsNumber() throws Exception {
        assertEquals(":3: expected 0x<hex handle><TAB><name>", refused("# c\n0x1\ta\n0x2 b\n"));
        assertEquals(":1: expected 0x<hex handle><TAB><name>", refused("12\tname\n"));
        assertEquals(":1: expected 0x<hex handle><TAB><name>", refused("0x\tname\n"));
        assertEquals(":1: expected 0x<hex handle><TAB><name>", refused("0x12\t\n"), "no name");
        assertEquals(":2: bad hex handle 0xzz", refused("0x1\ta\n0xzz\tb\n"));
        assertEquals(":1: bad hex handle 0x1ffffffffffffffff", refused("0x1ffffffffffffffff\ta\n"), "past 64 bits");
        assertEquals(":3: handle 0x01 named twice", refused("0x1\ta\n\n0x01\tb\n"));
    }

    @Test
    void aMissingFileIsOneClearError() {
        Path missing = dir.resolve("none.names.tsv");
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> KernelNameFile.read(missing));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    }

    private Path file(String text) throws Exception {
        Path p = Files.createTempFile(dir, "k", ".names.tsv");
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    private String refused(String text) throws Exception {
        Path p = file(text);
        String message = assertThrows(CaptureFormatException.class, () -> KernelNameFile.read(p)).getMessage();
        assertTrue(message.startsWith(p.toString()), message);
        return message.substring(p.toString().length());
    }
}
