package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Op args and stacks in the journal: journaled with the op, exported into its {@code cpu_op}; ops
 * without them journal as before and read the same; args garbled on disk into something an ops
 * file would refuse cost that op alone, skipped and counted.
 */
class JournalArgsTest {
    private static final OpArgs ARGS = OpArgs.builder().inputDims(new long[] {4, 8}).add("kk", 11L).build();
    private static final OpStack STACK = OpStack.of(List.of("a.B.c(B.java:1)"));

    @TempDir
    Path tmp;

    private Path journal() throws IOException {
        Path dir = tmp.resolve("ops");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession("ops", "test", 1_000, List.of(), Map.of(), -1, false))) {
            for (int i = 0; i < 10; i++) {
                boolean with = i % 2 == 0;
                writer.op(new HostOp("op-" + i, new ExternalId(i), 7, 1_000 + i * 10L, 1_005 + i * 10L, null,
                        with ? ARGS : null, with ? STACK : null));
            }
            writer.stop(2_000);
        }
        return dir;
    }

    @Test
    void argsAndStacksAreExportedIntoTheirOpsAndOpsWithoutThemReadAsBefore() throws IOException {
        JournalFixtures.Export export = JournalFixtures.export(journal(), JournalWindow.ALL);
        List<JsonNode> ops = cpuOps(export.trace());
        assertEquals(10, ops.size());
        for (JsonNode op : ops) {
            int i = Integer.parseInt(op.get("name").asText().substring(3));
            JsonNode args = op.get("args");
            if (i % 2 == 0) {
                assertEquals("[[4,8]]", args.get("Input Dims").toString());
                assertEquals(11, args.get("kk").asInt());
                assertEquals("a.B.c(B.java:1)", args.get("Call stack").asText());
            } else {
                assertEquals("[]", args.get("Input Dims").toString());
                assertTrue(!args.has("kk") && !args.has("Call stack"), args.toString());
            }
        }
        assertEquals(0, export.result().facts().invalidOps());
    }

    @Test
    void argsGarbledOnDiskCostThatOpAloneCounted() throws IOException {
        Path dir = journal();
        Path file = JournalDamageTest.cycleFile(dir);
        byte[] good = "\"kk\":11}".getBytes(StandardCharsets.UTF_8);
        long at = JournalDamageTest.find(file, good);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            f.write("\"kk\":tt}".getBytes(StandardCharsets.UTF_8)); // same length: seq and check still hold
        }
        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);
        assertEquals(9, cpuOps(export.trace()).size(), "the other ops are kept");
        assertEquals(1, export.result().facts().invalidOps());
        List<String> warnings = export.result().warnings();
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("op-0") && warnings.get(0).contains("invalid JSON in the op's args"), warnings.get(0));
    }

    private static List<JsonNode> cpuOps(JsonNode trace) {
        List<JsonNode> ops = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                ops.add(e);
            }
        }
        return ops;
    }
}
