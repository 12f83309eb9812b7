package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiNameHandle}: exact handles, one per (domain, id), and none colliding with a real kernel-name pointer:
 * every pointer in the bundled H200 captures' name tables reads as no API name, and the fake vendors' saved API names do.
 */
class ApiNameHandleTest {
    @Test
    void handlesAreTaggedAndDistinct() {
        assertEquals(0xFA00_0000_0000_0000L, ApiNameHandle.of(0, 0));
        assertEquals(0xFA00_0003_0000_0011L, ApiNameHandle.of(3, 17));
        assertEquals(0xFA00_FFFF_FFFF_FFFFL, ApiNameHandle.of(-1, -1), "domain kept to 16 bits, id to 32");
        Set<Long> seen = new HashSet<>();
        for (int domain : new int[] {0, 1, 10, 65_535}) {
            for (int id : new int[] {0, 1, 1000, Integer.MAX_VALUE, -1}) {
                long h = ApiNameHandle.of(domain, id);
                assertTrue(ApiNameHandle.isApiName(h));
                assertTrue(seen.add(h), "a second (domain, id) with handle " + Long.toHexString(h));
            }
        }
        assertFalse(ApiNameHandle.isApiName(0));
        assertFalse(ApiNameHandle.isApiName(0x7FFF_FFFF_FFFFL));
        assertFalse(ApiNameHandle.isApiName(0xFB00_0000_0000_0000L));
        assertFalse(ApiNameHandle.isApiName(-1L));
    }

    @Test
    void noKernelNamePointerOfTheBundledCapturesIsAnApiName() throws Exception {
        Path captures = Path.of(getClass().getResource("/captures").toURI());
        List<Path> tables;
        try (Stream<Path> s = Files.walk(captures)) {
            tables = s.filter(p -> p.getFileName().toString().endsWith(".names.tsv")).toList();
        }
        assertTrue(tables.size() >= 10, "name tables found: " + tables.size());
        int pointers = 0;
        int fakeTablesWithApiNames = 0;
        for (Path t : tables) {
            boolean fake = t.getFileName().toString().startsWith("fake-"); // fake vendors save their API names too
            int apiNames = 0;
            for (String line : Files.readAllLines(t)) {
                if (line.startsWith("#") || line.isBlank() || !line.startsWith("0x")) {
                    continue;
                }
                long key = Long.parseUnsignedLong(line.substring(2, line.indexOf('\t')), 16);
                if (ApiNameHandle.isApiName(key)) {
                    apiNames++;
                } else {
                    pointers++;
                }
            }
            if (fake) {
                fakeTablesWithApiNames += apiNames > 0 ? 1 : 0;
            } else {
                assertEquals(0, apiNames, t.getFileName() + ": a CUPTI kernel-name pointer reads as an API name");
            }
        }
        assertEquals(5, fakeTablesWithApiNames, "the five fake vendors' tables each hold API names");
        assertTrue(pointers > 100, "kernel-name pointers read: " + pointers);
    }
}
