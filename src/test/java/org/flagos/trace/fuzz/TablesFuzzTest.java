package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.encoders.EventTable;

/**
 * Fuzz target: a trace given to {@code tables} (issue 30, item 6), read by {@link TraceTables} into
 * an {@link EventTable} (its scratch under {@code target/}) and written as Parquet. Bad content
 * must be an {@link IOException} in words; what reads must give a Parquet file and as many rows as
 * it counted.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/TablesFuzzTestInputs/read/}: a replay of
 * the bundled h200-app capture, a merged trace of two, a torch object and a 2021 array.
 */
class TablesFuzzTest {
    private static final Path FILE = FuzzScratch.file("tables-input.json");
    private static final Path PARQUET = FuzzScratch.file("tables-output.parquet");
    private static final Path SCRATCH = FILE.getParent();

    @FuzzTest(maxDuration = "3m")
    void read(byte[] file) throws IOException {
        Files.deleteIfExists(PARQUET);
        try (EventTable events = new EventTable(SCRATCH)) {
            TraceTables tables = new TraceTables(events);
            try {
                tables.read(FuzzScratch.write(FILE, file));
            } catch (IOException | UncheckedIOException expected) {
                return;
            }
            long rows = events.writeParquet(PARQUET);
            if (rows != tables.rows() || !Files.isRegularFile(PARQUET)) {
                throw new IllegalStateException("wrote " + rows + " rows of " + tables.rows() + " read");
            }
        }
    }
}
