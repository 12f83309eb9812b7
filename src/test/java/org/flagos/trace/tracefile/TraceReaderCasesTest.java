package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The shared table of malformed traces ({@link MalformedTraces}) through the reader itself, with each option. */
class TraceReaderCasesTest {
    @TempDir
    Path dir;

    static List<MalformedTraces.Case> cases() {
        return MalformedTraces.all();
    }

    /** The line a refusal of {@code file} says. */
    static String line(Path file, MalformedTraces.Case c) {
        return file + (c.words().startsWith(":") ? "" : " ") + c.words();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyOptionReadsOrRefusesAlike(MalformedTraces.Case c) throws Exception {
        Path file = c.build().write(dir);
        for (TraceReader.Options options : List.of(TraceReader.Options.FIELDS, TraceReader.Options.FACTS, TraceReader.Options.COPY,
                TraceReader.Options.MERGE)) {
            if (c.exit() == 0) {
                long[] events = new long[1];
                TraceReader.read(file, "not a trace", options, e -> events[0]++);
                assertEquals(List.of("H200"), TraceReader.read(file, "not a trace", options, e -> { }).devices(), c.name());
            } else {
                TraceFormatException e = assertThrows(TraceFormatException.class,
                        () -> TraceReader.read(file, "not a trace", options, ev -> { }), c.name() + " " + options);
                assertEquals(line(file, c), e.getMessage(), c.name() + " " + options);
            }
        }
    }
}
