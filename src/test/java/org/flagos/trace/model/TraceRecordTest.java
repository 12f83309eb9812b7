package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link TraceRecord}: the id accessors' invariants, the release list, and, field by field through
 * reflection (so a field added later is covered without touching this test), that {@link TraceRecord#clear()}
 * leaves nothing of the record before and {@link TraceRecord#copyFrom} copies every record field.
 */
class TraceRecordTest {
    /** Not record fields: the release list (and its count) and the parked flag, which copyFrom leaves as documented. */
    private static final Set<String> NOT_COPIED = Set.of("released", "releasedCount", "parked");

    private static List<Field> instanceFields() {
        List<Field> out = new ArrayList<>();
        for (Field f : TraceRecord.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                out.add(f);
            }
        }
        return out;
    }

    /** A value of {@code f}'s type that differs from any default the class gives (0, -1, NaN, null, false). */
    private static Object dirtyValue(Field f, int salt) {
        Class<?> t = f.getType();
        if (t == long.class) {
            return 1_000_000_007L + salt;
        }
        if (t == int.class) {
            return 1_000 + salt;
        }
        if (t == boolean.class) {
            return true;
        }
        if (t == float.class) {
            return 3.5f + salt;
        }
        if (t == String.class) {
            return "value of " + f.getName();
        }
        if (t.isEnum()) {
            Object[] constants = t.getEnumConstants();
            return constants[constants.length - 1];
        }
        if (t == OpStack.class) {
            return OpStack.of(List.of("f(F.java:1)"));
        }
        if (t == OpArgs.class) {
            return OpArgs.builder().add("k", 1L).build();
        }
        if (t.isInterface()) {
            return Proxy.newProxyInstance(t.getClassLoader(), new Class<?>[] {t}, (p, m, a) -> switch (m.getName()) {
                case "equals" -> p == a[0];
                case "hashCode" -> System.identityHashCode(p);
                case "toString" -> "a " + t.getSimpleName();
                default -> null;
            });
        }
        return null;
    }

    private static TraceRecord dirty() throws Exception {
        TraceRecord r = new TraceRecord();
        int salt = 0;
        for (Field f : instanceFields()) {
            if (NOT_COPIED.contains(f.getName())) {
                continue;
            }
            Object v = dirtyValue(f, salt++);
            if (v != null) {
                f.set(r, v);
            }
        }
        r.parked = true;
        r.release(new TraceRecord());
        return r;
    }

    @Test
    void everyFieldHasADirtyValueInThisTest() {
        for (Field f : instanceFields()) {
            if (!NOT_COPIED.contains(f.getName())) {
                assertTrue(dirtyValue(f, 0) != null, "no dirty value for " + f.getName() + " of " + f.getType());
            }
        }
    }

    @Test
    void clearLeavesEveryFieldAsAClearedFreshRecordHasIt() throws Exception {
        TraceRecord used = dirty();
        TraceRecord fresh = new TraceRecord();
        fresh.clear();
        used.clear();
        for (Field f : instanceFields()) {
            if (f.getName().equals("released")) {
                continue; // its array may have grown; its count is checked
            }
            assertEquals(f.get(fresh), f.get(used), "clear() left " + f.getName());
        }
        assertEquals(0, used.releasedCount());
        assertEquals(-1, fresh.nameId);
        assertTrue(Float.isNaN(fresh.blocksPerSm));
        assertEquals(TraceRecord.NO_OCCUPANCY, fresh.occupancyPercent);
    }

    @Test
    void copyFromCopiesEveryRecordFieldAndNotTheReleaseListOrParked() throws Exception {
        TraceRecord from = dirty();
        TraceRecord to = new TraceRecord();
        to.parked = true;
        to.copyFrom(from);
        for (Field f : instanceFields()) {
            if (!NOT_COPIED.contains(f.getName())) {
                assertEquals(f.get(from), f.get(to), "copyFrom missed " + f.getName());
            }
        }
        assertFalse(to.parked, "a copy is not parked");
        assertEquals(0, to.releasedCount());
        assertEquals(1, from.releasedCount());
    }

    @Test
    void idAccessorsKeepTheirFlagsConsistent() {
        TraceRecord r = new TraceRecord();
        r.clear();
        assertFalse(r.hasCorrelation());
        assertFalse(r.hasExternalId());
        r.correlation(-1L); // 64 bits, unsigned
        assertTrue(r.hasCorrelation());
        assertEquals(-1L, r.correlation());
        r.clearCorrelation();
        assertFalse(r.hasCorrelation());
        assertEquals(0, r.correlation());

        r.externalId(0); // 0 is a valid id
        assertTrue(r.hasExternalId());
        assertFalse(r.externalIdOfRange());
        r.rangeExternalId(9);
        assertTrue(r.externalIdOfRange());
        assertEquals(9, r.externalId());
        r.externalId(10);
        assertFalse(r.externalIdOfRange(), "an op's id replaces the range's");
        r.rangeExternalId(11);
        r.clearExternalId();
        assertFalse(r.hasExternalId());
        assertFalse(r.externalIdOfRange());
        assertEquals(0, r.externalId());
    }

    @Test
    void activityAndBindingStartFromAClearedSlot() {
        TraceRecord r = new TraceRecord();
        r.opName = "left over";
        r.rangeExternalId(5);
        r.present(RecordField.values()[0]);
        r.activity(EventKind.values()[0], 100, 350, 42);
        assertEquals(RecordType.ACTIVITY, r.type);
        assertEquals(EventKind.values()[0], r.kind);
        assertEquals(250, r.durationNs());
        assertEquals(42, r.correlation());
        assertTrue(r.hasCorrelation());
        assertFalse(r.hasExternalId());
        assertNull(r.opName);
        assertFalse(r.has(RecordField.values()[0]));

        r.binding(-2L, 77);
        assertEquals(RecordType.CORRELATION_BINDING, r.type);
        assertEquals(-2L, r.correlation());
        assertEquals(77, r.externalId());
        assertFalse(r.externalIdOfRange());
        assertEquals(0, r.durationNs());
    }

    @Test
    void fieldsArePresentOnlyWhenMarked() {
        TraceRecord r = new TraceRecord();
        RecordField[] all = RecordField.values();
        r.present(all[1]);
        assertTrue(r.has(all[1]));
        assertFalse(r.has(all[0]));
        r.presentAll(all[0].bit() | all[all.length - 1].bit());
        assertTrue(r.has(all[0]) && r.has(all[1]) && r.has(all[all.length - 1]));
        r.clear();
        for (RecordField f : all) {
            assertFalse(r.has(f), f.name());
        }
    }

    @Test
    void releasedRecordsKeepTheirOrderThroughGrowthAndWithdrawal() {
        TraceRecord slot = new TraceRecord();
        List<TraceRecord> held = new ArrayList<>();
        for (int i = 0; i < 9; i++) { // past the initial room of 4
            TraceRecord h = new TraceRecord();
            h.startNs = i;
            held.add(h);
            slot.release(h);
        }
        assertEquals(9, slot.releasedCount());
        slot.withdrawRelease(0);
        slot.withdrawRelease(3); // the one that was 4th of the rest: held[4]
        slot.withdrawRelease(6); // the last
        assertEquals(6, slot.releasedCount());
        long[] want = {1, 2, 3, 5, 6, 7};
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], slot.released(i).startNs);
        }
        assertSame(held.get(7), slot.released(5));
        slot.clear();
        assertEquals(0, slot.releasedCount());
        assertNotEquals("", slot.toString());
    }
}
