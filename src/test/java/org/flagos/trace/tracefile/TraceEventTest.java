package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TraceEvent}: its rules for whole numbers and times, its reset state, and its fields as the reader
 * fills them from a real torch trace ({@code torch-reference/torch_trace.json}), checked field by field
 * against the same file read by Jackson's tree model.
 */
class TraceEventTest {
    @Test
    void wholeNumberTakesSigned64BitIntegersInAtMost20Characters() {
        assertEquals(0, TraceEvent.wholeNumber("0"));
        assertEquals(-42, TraceEvent.wholeNumber("-42"));
        assertEquals(Long.MAX_VALUE, TraceEvent.wholeNumber("9223372036854775807"));
        assertEquals(Long.MIN_VALUE + 1, TraceEvent.wholeNumber("-9223372036854775807"));
        assertEquals(TraceEvent.NONE, TraceEvent.wholeNumber("9223372036854775808"), "past 64 bits");
        assertEquals(TraceEvent.NONE, TraceEvent.wholeNumber(""));
        assertEquals(TraceEvent.NONE, TraceEvent.wholeNumber("1.5"));
        assertEquals(TraceEvent.NONE, TraceEvent.wholeNumber(" 1"));
        assertEquals(TraceEvent.NONE, TraceEvent.wholeNumber("0x10"));
        assertEquals(TraceEvent.NONE, TraceEvent.wholeNumber("000000000000000000001"), "21 characters");
        assertEquals(1, TraceEvent.wholeNumber("00000000000000000001"), "20 characters");
    }

    @Test
    void onlyNumbersAreTimes() {
        assertTrue(TraceEvent.isTime(JsonToken.VALUE_NUMBER_INT));
        assertTrue(TraceEvent.isTime(JsonToken.VALUE_NUMBER_FLOAT));
        assertFalse(TraceEvent.isTime(JsonToken.VALUE_STRING));
        assertFalse(TraceEvent.isTime(JsonToken.VALUE_NULL));
        assertFalse(TraceEvent.isTime(JsonToken.START_OBJECT));
    }

    @Test
    void resetLeavesNoValueOfTheEventBefore() {
        TraceEvent e = new TraceEvent();
        e.ph = "X";
        e.cat = "kernel";
        e.name = "k";
        e.pid = "1";
        e.dtype = "float";
        e.tsNs = 5;
        e.externalId = 7;
        e.stream = 7;
        e.groupSize = 8;
        e.unusable = true;
        e.rawBytes = new byte[1];
        e.reset();
        assertNull(e.ph());
        assertNull(e.cat());
        assertNull(e.name());
        assertNull(e.pid());
        assertNull(e.dtype());
        assertNull(e.rawBytes());
        assertFalse(e.unusable());
        for (long v : new long[] {e.pidNumber(), e.tidNumber(), e.tsNs(), e.durNs(), e.id(), e.externalId(), e.correlation(),
                e.device(), e.deviceType(), e.stream(), e.bytes(), e.memoryBytes(), e.totalAllocated(), e.totalReserved(),
                e.fromDevice(), e.toDevice(), e.fromContext(), e.toContext(), e.value(), e.inElems(), e.outElems(),
                e.groupSize()}) {
            assertEquals(TraceEvent.NONE, v);
        }
        assertFalse(e.isCategory("kernel"));
    }

    private static long field(JsonNode n, String name) {
        JsonNode v = n.get(name);
        return v == null ? TraceEvent.NONE : v.longValue();
    }

    private static long ns(JsonNode n, String name) {
        JsonNode v = n.get(name);
        return v == null ? TraceEvent.NONE : new BigDecimal(v.asText()).movePointRight(3).longValueExact();
    }

    @Test
    void aRealTorchTracesEventsReadAsJacksonReadsThem() throws Exception {
        Path file = Path.of(getClass().getResource("/torch-reference/torch_trace.json").toURI());
        List<String> got = new ArrayList<>();
        int[] withExternal = {0};
        TraceReader.read(file, "not a trace", TraceReader.Options.FIELDS, e -> {
            withExternal[0] += e.externalId() != TraceEvent.NONE ? 1 : 0;
            got.add(String.join("|", e.ph(), String.valueOf(e.cat()), e.name(), String.valueOf(e.pid()),
                    String.valueOf(e.tid()), Long.toString(e.tsNs()), Long.toString(e.durNs()), Long.toString(e.externalId()),
                    Long.toString(e.correlation()), Long.toString(e.device()), Long.toString(e.stream()), Long.toString(e.bytes()),
                    Long.toString(e.id()), Boolean.toString(e.unusable()), Boolean.toString(e.isCategory("kernel"))));
        });
        JsonNode events = new ObjectMapper().readTree(file.toFile()).get("traceEvents");
        assertEquals(263, events.size());
        assertEquals(events.size(), got.size());
        for (int i = 0; i < events.size(); i++) {
            JsonNode n = events.get(i);
            JsonNode args = n.has("args") ? n.get("args") : new ObjectMapper().createObjectNode();
            String want = String.join("|", n.get("ph").asText(), n.has("cat") ? n.get("cat").asText() : "null",
                    n.get("name").asText(), n.has("pid") ? n.get("pid").asText() : "null",
                    n.has("tid") ? n.get("tid").asText() : "null", Long.toString(ns(n, "ts")), Long.toString(ns(n, "dur")),
                    Long.toString(field(args, "External id")), Long.toString(field(args, "correlation")),
                    Long.toString(field(args, "device")), Long.toString(field(args, "stream")),
                    Long.toString(field(args, "bytes")), Long.toString(field(n, "id")), "false",
                    Boolean.toString(n.has("cat") && n.get("cat").asText().equals("kernel")));
            assertEquals(want, got.get(i), "event " + i);
        }
        assertEquals(117, withExternal[0], "the trace's 117 events with an External id");
    }
}
