package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The one string interner: ids in first-seen order, its bounds, and NameTable on top of it. */
class StringIdsTest {
    @Test
    void idsAreNumberedInFirstSeenOrderAndASecondSightGivesTheSameId() {
        StringIds ids = new StringIds();
        assertEquals(0, ids.id("a"));
        assertEquals(1, ids.id("b"));
        assertEquals(0, ids.id("a"));
        assertEquals(2, ids.size());
        assertEquals("b", ids.get(1));
    }

    @Test
    void pastTheCountOrTheCharactersItAnswersMinusOneAndKeepsWhatItHas() {
        StringIds byCount = new StringIds(2, 100);
        byCount.id("a");
        byCount.id("b");
        assertEquals(-1, byCount.id("c"));
        assertEquals(1, byCount.id("b"));
        assertEquals(2, byCount.size());

        StringIds byChars = new StringIds(100, 5);
        assertEquals(0, byChars.id("abc"));
        assertEquals(-1, byChars.id("def"));
        assertEquals(1, byChars.id("de"));
        assertEquals(-1, byChars.id("f"));
    }

    @Test
    void growingPastItsFirstArrayKeepsEveryString() {
        StringIds ids = new StringIds();
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, ids.id("s" + i));
        }
        for (int i = 0; i < 1000; i++) {
            assertEquals("s" + i, ids.get(i));
        }
    }

    @Test
    void nameTableInternsThroughIt() {
        NameTable names = new NameTable();
        assertEquals(0, names.intern("kernel"));
        assertEquals(1, names.intern("op"));
        assertEquals(0, names.intern("kernel"));
        assertEquals("op", names.name(1));
        assertEquals(2, names.size());
    }
}
