package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.sql.ResultTable;
import org.flagos.trace.testing.TableRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kernel_sequences on DuckDB over real traces (PyTorch's own H200 traces, HTA's simple_add trace, the
 * two-rank H200 merge) against a recount in plain Java over the table's rows as stored: each stream's
 * kernels sorted, every window of n = 2..5 names counted, the 10 most frequent per stream and n kept.
 */
class KernelSequencesTest {
    @TempDir
    Path dir;

    static final Comparator<TableRows.Ev> ORDER = Comparator.comparing(TableRows.Ev::ts).thenComparing(TableRows.Ev::end)
            .thenComparing(TableRows.Ev::correlation, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(TableRows.Ev::name);

    /** kernel_sequences of {@code rows}, recounted: the table's rows in its order. */
    static List<List<Object>> recount(List<TableRows.Ev> rows) {
        Map<List<Object>, List<TableRows.Ev>> streams = new HashMap<>();
        for (TableRows.Ev e : rows) {
            if (e.complete() && e.name() != null && ("kernel".equals(e.cat()) || "Kernel".equals(e.cat()))) {
                streams.computeIfAbsent(java.util.Arrays.asList(e.rank(), e.device(), e.stream()), k -> new ArrayList<>()).add(e);
            }
        }
        // per stream and n: sequence -> {occurrences, kernel ns, span ns}
        Map<List<Object>, Map<String, long[]>> counts = new HashMap<>();
        for (Map.Entry<List<Object>, List<TableRows.Ev>> s : streams.entrySet()) {
            List<TableRows.Ev> k = new ArrayList<>(s.getValue());
            k.sort(ORDER);
            for (int n = 2; n <= 5; n++) {
                List<Object> key = new ArrayList<>(s.getKey());
                key.add((long) n);
                Map<String, long[]> c = counts.computeIfAbsent(key, x -> new HashMap<>());
                for (int i = 0; i + n <= k.size(); i++) {
                    StringBuilder names = new StringBuilder();
                    long kernelNs = 0;
                    long end = Long.MIN_VALUE;
                    for (int j = i; j < i + n; j++) {
                        names.append(j == i ? "" : " | ").append(k.get(j).name());
                        kernelNs += k.get(j).dur();
                        end = Math.max(end, k.get(j).end());
                    }
                    long[] a = c.computeIfAbsent(names.toString(), x -> new long[3]);
                    a[0]++;
                    a[1] += kernelNs;
                    a[2] += end - k.get(i).ts();
                }
            }
        }
        List<List<Object>> out = new ArrayList<>();
        for (Map.Entry<List<Object>, Map<String, long[]>> g : counts.entrySet()) {
            List<Map.Entry<String, long[]>> seqs = new ArrayList<>();
            for (Map.Entry<String, long[]> e : g.getValue().entrySet()) {
                if (e.getValue()[0] >= 2) {
                    seqs.add(e);
                }
            }
            seqs.sort(Comparator.<Map.Entry<String, long[]>>comparingLong(e -> -e.getValue()[0])
                    .thenComparingLong(e -> -e.getValue()[1]).thenComparing(Map.Entry::getKey));
            for (int p = 0; p < Math.min(10, seqs.size()); p++) {
                List<Object> row = new ArrayList<>(g.getKey());
                long[] a = seqs.get(p).getValue();
                row.addAll(List.of((long) p + 1, a[0], a[1], a[2], seqs.get(p).getKey()));
                out.add(row);
            }
        }
        out.sort(KernelSequencesTest::compareRows);
        return out;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compareRows(List<Object> a, List<Object> b) {
        for (int i = 0; i < Math.min(5, Math.min(a.size(), b.size())); i++) {
            int c = Comparator.nullsFirst((Comparator) Comparator.naturalOrder()).compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(Math.min(5, a.size()), Math.min(5, b.size()));
    }

    /** The table's rows, checked equal to the recount, as maps. */
    private List<Map<String, Object>> check(Path events) throws Exception {
        ResultTable t = TableRows.run(events, "kernel_sequences");
        assertEquals(List.of("rank", "device", "stream", "n", "place", "occurrences", "kernel_ns", "span_ns", "kernels"), t.columns());
        List<List<Object>> want = recount(TableRows.read(events));
        List<List<Object>> got = new ArrayList<>(t.rows());
        got.sort(KernelSequencesTest::compareRows);
        assertEquals(want, got);
        assertTrue(!got.isEmpty(), "sequences found");
        return TableRows.maps(t);
    }

    private static Map<String, Object> top(List<Map<String, Object>> rows, long rank, long stream, long n) {
        return rows.stream().filter(r -> r.get("rank").equals(rank) && Long.valueOf(stream).equals(r.get("stream"))
                && r.get("n").equals(n) && r.get("place").equals(1L)).findFirst().orElseThrow();
    }

    @Test
    void torchsOwnH200TracesEqualTheRecount() throws Exception {
        Path steps = Path.of(getClass().getResource("/captures/h200-java-steps/h200-java-steps.torch.pt.trace.json.gz").toURI());
        List<Map<String, Object>> rows = check(TableRows.table(dir.resolve("steps.parquet"), steps));
        assertTrue(rows.size() >= 8, "rows: " + rows.size());
        Path reference = Path.of(getClass().getResource("/torch-reference/torch_trace.json").toURI());
        check(TableRows.table(dir.resolve("reference.parquet"), reference));
    }

    @Test
    void htasSimpleAddTraceEqualsTheRecount() throws Exception {
        Path trace = Path.of(getClass().getResource("/hta/simple_add_trace.json.gz").toURI());
        List<Map<String, Object>> rows = check(TableRows.table(dir.resolve("hta.parquet"), trace));
        assertTrue(rows.stream().anyMatch(r -> (Long) r.get("occurrences") >= 3), "a sequence seen three times or more");
    }

    @Test
    void twoH200RanksEqualTheRecount() throws Exception {
        Path merged = Path.of(getClass().getResource("/captures/h200-ranks/h200-ranks.merged.json.gz").toURI());
        List<Map<String, Object>> rows = check(TableRows.table(dir.resolve("ranks.parquet"), merged));
        assertEquals(2, rows.stream().map(r -> r.get("rank")).distinct().count(), "both ranks");
        // each rank's 8 steps run fill, spin, then the peer all-reduce on stream 13
        String cycle = "fill(float*, float, int) | spin(long long, float*) | allreduce_sum_peer(float*, float const*, float const*, int)";
        for (long rank : new long[] {0, 1}) {
            Map<String, Object> first = top(rows, rank, 13, 3);
            assertEquals(cycle, first.get("kernels"));
            assertEquals(8L, first.get("occurrences"));
        }
        assertEquals(8_143_551L, top(rows, 0, 13, 3).get("kernel_ns"));
        assertEquals(27_535_844L, top(rows, 0, 13, 3).get("span_ns"));
    }
}
