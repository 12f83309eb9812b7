package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;

/**
 * Fuzz target: the Parquet file given to {@code analyze} (issue 30, item 6), opened by
 * {@link DuckDbAnalyses#open} (its columns checked against docs/tables.md) and every analysis run.
 * Bad content must be an {@link IOException} whose message is in words (no DuckDB or Java type
 * names); what runs must give every table with rows of whole numbers and text only.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/AnalyzeParquetFuzzTestInputs/analyze/}:
 * the events tables {@code flagtrace tables} wrote of a merged trace of two and of a torch object.
 */
class AnalyzeParquetFuzzTest {
    private static final Path FILE = FuzzScratch.file("analyze-input.parquet");
    private static final List<String> FOREIGN = List.of("Exception", "TProtocol", "Conversion Error", "Binder Error", "java.",
            "duckdb", "INT32");

    @FuzzTest(maxDuration = "3m")
    void analyze(byte[] file) {
        List<ResultTable> tables;
        try (DuckDbAnalyses duck = DuckDbAnalyses.open(FuzzScratch.write(FILE, file))) {
            tables = duck.runAll();
        } catch (IOException expected) {
            for (String word : FOREIGN) {
                if (String.valueOf(expected.getMessage()).contains(word)) {
                    throw new IllegalStateException("DuckDB's words reach the message: " + expected.getMessage());
                }
            }
            return;
        }
        for (ResultTable t : tables) {
            for (List<Object> row : t.rows()) {
                for (Object v : row) {
                    if (v != null && !(v instanceof Long) && !(v instanceof String)) {
                        throw new IllegalStateException(t.name() + " holds a " + v.getClass().getSimpleName());
                    }
                }
            }
        }
    }
}
