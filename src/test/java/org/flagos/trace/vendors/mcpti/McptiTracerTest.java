package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.testing.CollectingSink;
import org.flagos.trace.testing.CuptiRecords;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.vendors.family.ClockedDecoder;
import org.flagos.trace.testing.NameSavingTap;
import org.junit.jupiter.api.Test;

/**
 * McptiTracer's naming rules over the fake MCPTI (runtime ids 1-300 named, and 5000 far past them):
 * before arming, the namespace is enumerated up to {@link McptiTracer#NAMESPACE_GAP} ids past the
 * last name (300 names, not 5000) and every name goes to each session's capture; during the session
 * names come from that map only; after the final flush an id the session saw unnamed is resolved,
 * saved, reported word for word and listed in {@link McptiTracer#namedLate()}.
 */
class McptiTracerTest {
    private static final int RUNTIME = 5;

    private static McptiTracer fake() {
        McptiTracer tracer = new McptiTracer(FakeVendorLibrary.build("fake_mcpti").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 0);
        return tracer;
    }

    @Test
    void theNamespaceIsEnumeratedUpToTheGapAndSavedIntoEverySessionsCapture() {
        McptiTracer tracer = fake();
        NameSavingTap first = new NameSavingTap();
        tracer.beforeArming(first);
        assertEquals(300, first.saved.size(), "ids 1-300; 5000 lies past the gap of " + McptiTracer.NAMESPACE_GAP);
        assertEquals("mcLaunchKernel", first.saved.get(ApiNameHandle.of(RUNTIME, 57)));
        assertEquals("mcApi300", first.saved.get(ApiNameHandle.of(RUNTIME, 300)));
        assertEquals("mcLaunchKernel", tracer.apiNames().name(EventKind.RUNTIME, 57));
        assertNull(tracer.apiNames().name(EventKind.RUNTIME, 5000), "during a session the map only: the vendor is not asked");
        NameSavingTap second = new NameSavingTap();
        tracer.beforeArming(second);
        assertEquals(first.saved, second.saved, "the next capture gets every name too");
    }

    @Test
    void anIdSeenUnnamedIsResolvedAfterTheFinalFlushAndReported() {
        McptiTracer tracer = fake();
        NameSavingTap session = new NameSavingTap();
        tracer.beforeArming(session);
        ClockedDecoder decoder = tracer.decoder(new NameTable(), session);
        byte[] records = new CuptiRecords().runtime(57, 1000, 2000, 1, 2, 1).runtime(5000, 3000, 4000, 1, 2, 2).bytes();
        decoder.decode(ByteBuffer.wrap(records).order(ByteOrder.LITTLE_ENDIAN), new CollectingSink(), new DecodeStats());
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            tracer.afterFinalFlush(decoder, session);
        } finally {
            System.setErr(saved);
        }
        assertEquals(List.of("5000=mcLaunchHostFunc"), tracer.namedLate());
        assertEquals("mcLaunchHostFunc", session.saved.get(ApiNameHandle.of(RUNTIME, 5000)), "in the capture's name table");
        assertEquals("mcLaunchHostFunc", tracer.apiNames().name(EventKind.RUNTIME, 5000));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("flagtrace[mcpti] WARNING: 1 MCPTI API ids lay outside the"
                + " namespace resolved at start and kept the generic label in the live trace (named in the capture's name"
                + " table): [5000=mcLaunchHostFunc]"), err.toString(StandardCharsets.UTF_8));
        assertEquals(new McptiTracer.Scan(0, 0, 0, List.of("5000=mcLaunchHostFunc")), tracer.lastScan());
    }
}
