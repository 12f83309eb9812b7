package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * The kernel names an arriving replay answered, on a real capture's table: each handle answered as first looked up
 * (the stream's name over the process's, none as none), and the table written at the close held to every answer.
 */
class ArrivingNamesTest {
    private final KernelNameFile table = KernelNameFile.read(Captures.names("h200-java-parity"));
    private final Map.Entry<Long, String> first = table.entries().entrySet().iterator().next();

    @Test
    void namesArrivedBeforeTheyAreLookedUpAreAnsweredAsTheTableWrittenAtTheClose() {
        ArrivingNames names = new ArrivingNames();
        table.entries().forEach(names::received);
        table.entries().keySet().forEach(names::lookup);
        assertEquals(first.getValue(), names.lookup(first.getKey()));
        assertNull(names.lookup(-1L));
        assertTrue(names.answeredAs(table));
    }

    @Test
    void aNameLookedUpBeforeItArrivedKeepsItsFirstAnswerAndTheTableDiffers() {
        ArrivingNames names = new ArrivingNames();
        assertNull(names.lookup(first.getKey()));
        names.received(first.getKey(), first.getValue());
        assertNull(names.lookup(first.getKey()), "answered as first given");
        assertFalse(names.answeredAs(table));
    }

    @Test
    void theStreamsNameStandsOverTheProcesssAndItsFirstNamingStands() {
        ArrivingNames names = new ArrivingNames();
        names.fromProcess(Map.of(1L, "from the process", 2L, "only the process's"));
        names.received(1L, "from the stream");
        names.received(1L, "again");
        assertEquals("from the stream", names.lookup(1L));
        assertEquals("only the process's", names.lookup(2L));
        assertFalse(names.answeredAs(table));
    }
}
