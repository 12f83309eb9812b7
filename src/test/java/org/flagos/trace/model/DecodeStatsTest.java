package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A decode's counts: published by kind plus bindings, skipped by vendor kind, and the first ten problems in words. */
class DecodeStatsTest {
    @Test
    void publishedCountsBindingsInTheTotal() {
        DecodeStats stats = new DecodeStats();
        stats.countPublished(EventKind.KERNEL);
        stats.countPublished(EventKind.KERNEL);
        stats.countPublished(EventKind.RUNTIME);
        stats.countBinding();
        assertEquals(2, stats.published(EventKind.KERNEL));
        assertEquals(1, stats.published(EventKind.RUNTIME));
        assertEquals(0, stats.published(EventKind.MEMCPY));
        assertEquals(1, stats.bindings());
        assertEquals(4, stats.publishedTotal());
    }

    @Test
    void skippedByVendorKindInKindOrder() {
        DecodeStats stats = new DecodeStats();
        stats.countSkipped(9);
        stats.countSkipped(1);
        stats.countSkipped(9);
        assertEquals(Map.of(1, 1L, 9, 2L), stats.skippedByVendorKind());
        assertEquals("{1=1, 9=2}", stats.skippedByVendorKind().toString());
        assertEquals(3, stats.skippedTotal());
    }

    @Test
    void theFirstTenProblemsAreKeptAndTheRestCounted() {
        DecodeStats stats = new DecodeStats();
        assertEquals("", stats.problems());
        stats.undecodable(40, "p0");
        for (int i = 1; i < 10; i++) {
            stats.invalid("p" + i);
        }
        assertEquals("p0; p1; p2; p3; p4; p5; p6; p7; p8; p9", stats.problems());
        stats.invalid("p10");
        stats.undecodable(2, "p11");
        assertEquals("p0; p1; p2; p3; p4; p5; p6; p7; p8; p9 (+2 more)", stats.problems());
        assertEquals(10, stats.invalidRecords(), "every one counted, beyond the ten words");
        assertEquals(42, stats.undecodableBytes());
    }

    @Test
    void theOtherCounters() {
        DecodeStats stats = new DecodeStats();
        stats.incomplete();
        stats.unwritten(100);
        stats.unwritten(28);
        stats.annotationAttributes();
        stats.annotationAttributes();
        stats.unnamedKernel();
        assertEquals(1, stats.incompleteRecords());
        assertEquals(128, stats.unwrittenBytes());
        assertEquals(2, stats.annotationAttributesRead());
        assertEquals(1, stats.unnamedKernels());
        assertEquals(0, stats.invalidRecords());
        assertEquals("", stats.problems(), "none of these is a problem in words");
    }
}
