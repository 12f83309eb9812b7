package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.flagos.trace.sql.Analyses;
import org.junit.jupiter.api.Test;

/** The spark-submit entry point's arguments: what each call asks for, and one line for each wrong one. */
class AnalysesRequestTest {
    @Test
    void aParquetTableToCsvWithEveryAnalysisIsTheDefault() {
        AnalysesRequest r = AnalysesRequest.parse("s3a://bucket/job7", "hdfs:///out/job7");
        assertEquals(AnalysesRequest.Input.PARQUET, r.kind());
        assertEquals(List.of("s3a://bucket/job7"), r.inputs());
        assertEquals("hdfs:///out/job7", r.output());
        assertEquals("csv", r.format());
        assertEquals(Analyses.NAMES, r.names());
        assertTrue(r.needsCriticalPath());
        assertEquals(Map.of(), r.sourceOptions());
    }

    @Test
    void tracesTakeSeveralPathsAndTheDataSourcesOptions() {
        AnalysesRequest r = AnalysesRequest.parse("--traces", "--job-id", "job7", "--rank-from-path", "rank(\\d+)\\.", "--clock", "trace",
                "--mode", "DROPMALFORMED", "--format", "PARQUET", "--only", "rank_ops,rank_steps", "/a", "/b/*.json.gz", "/out");
        assertEquals(AnalysesRequest.Input.TRACES, r.kind());
        assertEquals(List.of("/a", "/b/*.json.gz"), r.inputs());
        assertEquals("parquet", r.format());
        assertEquals(List.of("rank_steps", "rank_ops"), r.names()); // the analyses' own order
        assertFalse(r.needsCriticalPath());
        assertEquals(Map.of("jobId", "job7", "rankFromPath", "rank(\\d+)\\.", "clock", "trace", "mode", "DROPMALFORMED"), r.sourceOptions());
    }

    @Test
    void aTableIsOneName() {
        AnalysesRequest r = AnalysesRequest.parse("--table", "warehouse.job7_events", "--only", "critical_path_segments", "/out");
        assertEquals(AnalysesRequest.Input.TABLE, r.kind());
        assertEquals(List.of("warehouse.job7_events"), r.inputs());
        assertTrue(r.needsCriticalPath());
    }

    @Test
    void eachWrongCallIsRefusedInOneLine() {
        Map<List<String>, String> wrong = Map.of(
                List.of("/only-one"), AnalysesRequest.USAGE,
                List.of("--format", "orc", "/in", "/out"), "--format orc: csv or parquet",
                List.of("--only", "rank_ops,gpu_kernel_breakdown", "/in", "/out"), "--only gpu_kernel_breakdown: no such analysis ("
                        + String.join(", ", Analyses.NAMES) + ")",
                List.of("--table", "--traces", "/in", "/out"), "--table and --traces exclude each other",
                List.of("/a", "/b", "/out"), "one events table, not 2 (/a /b); several inputs are trace files: --traces",
                List.of("--job-id", "j", "/in", "/out"), "--job-id, --rank-from-path, --clock and --mode are the data source's: with --traces only",
                List.of("--steps", "3-7", "/in", "/out"), "unknown option --steps; " + AnalysesRequest.USAGE,
                List.of("/in", "/out", "--only"), "--only needs a value");
        for (Map.Entry<List<String>, String> w : wrong.entrySet()) {
            AnalysesRequest.Refused e = assertThrows(AnalysesRequest.Refused.class, () -> AnalysesRequest.parse(w.getKey().toArray(String[]::new)));
            assertEquals(w.getValue(), e.getMessage(), w.getKey().toString());
            assertFalse(e.getMessage().contains("\n"));
        }
    }
}
