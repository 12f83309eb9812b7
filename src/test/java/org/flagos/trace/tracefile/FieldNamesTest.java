package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The field names the scan keeps: found by their bytes and closing quote, each under its path, within the bounds. */
class FieldNamesTest {
    private static byte[] doc(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aNameIsFoundByItsBytesAndClosingQuoteUnderItsPath() {
        FieldNames names = new FieldNames();
        byte[] b = doc("\"ph\":1,\"pid\":2,\"p\":3");
        int ph = names.add(FieldNames.ROOT, b, 1, 3, 7, 1);
        int pid = names.add(ph, b, 8, 11, 8, 4);
        assertEquals(ph, names.child(FieldNames.ROOT, b, 1, b.length));
        assertEquals(2, names.length(ph));
        assertEquals(1, names.kind(ph));
        assertEquals(7, names.hash(ph));
        assertEquals(pid, names.child(ph, b, 8, b.length));
        assertEquals(-1, names.child(FieldNames.ROOT, b, 8, b.length), "pid is kept after ph only");
        assertEquals(-1, names.child(FieldNames.ROOT, b, 16, b.length), "p: a prefix of ph, no closing quote where ph's is");
        assertEquals(-1, names.child(ph, b, 8, 11), "the closing quote not yet read");
        assertEquals(4, names.kind(pid));
    }

    @Test
    void nothingIsKeptPastTheBounds() {
        FieldNames names = new FieldNames();
        byte[] b = doc("\"" + "n".repeat(FieldNames.MAX_NAME + 1) + "\"");
        assertEquals(-1, names.add(FieldNames.ROOT, b, 1, 2 + FieldNames.MAX_NAME, 0, 0), "a name past MAX_NAME bytes");
        assertTrue(names.add(FieldNames.ROOT, b, 1, 1 + FieldNames.MAX_NAME, 0, 0) > 0);
        byte[] k = doc("ab");
        for (int i = 1; i < FieldNames.MAX_CHILDREN; i++) {
            assertTrue(names.add(FieldNames.ROOT, k, 0, 1, i, 0) > 0);
        }
        assertEquals(-1, names.add(FieldNames.ROOT, k, 0, 1, 99, 0), "past MAX_CHILDREN children of a node");
        int node = 1;
        int kept = 1 + FieldNames.MAX_CHILDREN;
        while (kept < FieldNames.MAX_NODES) {
            node = names.add(node, k, 0, 2, 0, 0);
            assertTrue(node > 0);
            kept++;
        }
        assertEquals(-1, names.add(node, k, 0, 2, 0, 0), "past MAX_NODES nodes");
    }
}
