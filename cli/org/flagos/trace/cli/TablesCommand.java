package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.encoders.EventTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flagtrace tables}: the events of trace files as one Parquet table (docs/tables.md). */
@Command(name = "tables", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false, sortSynopsis = false, separator = " ",
        header = "Write the events of traces as one Parquet table that any SQL engine reads.",
        description = "One row per timed event, with its process's rank on every row (a merged trace's slots are its"
                + " ranks), times in ns since the epoch and the ids that pair ops, runtime calls and device work; the"
                + " columns are in docs/tables.md. Streamed: memory does not grow with the traces.",
        exitCodeListHeading = ExitCodes.HEADING,
        exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE})
final class TablesCommand implements Callable<Integer> {
    @Parameters(index = "0..*", arity = "1..*", paramLabel = "TRACE", description = "torch-compatible JSON traces (either torch"
            + " schema, object or bare array, gzipped or not), one per process, or one merged trace (flagtrace merge)")
    List<Path> traces;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "EVENTS.parquet", description = "the table to write")
    Path table;

    private final CliContext context;

    TablesCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        Map<String, Path> inputs = new LinkedHashMap<>();
        for (int i = 0; i < traces.size(); i++) {
            inputs.put(traces.size() == 1 ? "trace" : "trace " + (i + 1), traces.get(i));
        }
        OutputPaths.refuse(inputs, Map.of("-o", table));
        OutputPaths.checkTraceName("-o", table, List.of(TraceFormat.PARQUET), "the table is a Parquet file");
        OutputPaths.checkWritable(Map.of("-o", table)); // before a long read, not after it
        Path parent = table.toAbsolutePath().getParent();
        Path scratch = AtomicOutput.writesStraight(table) || parent == null ? Path.of(System.getProperty("java.io.tmpdir")) : parent;
        Path parquet = scratch.resolve(EventTable.SCRATCH_PREFIX + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".parquet");
        parquet.toFile().deleteOnExit();
        TraceTables read;
        try (EventTable events = new EventTable(scratch)) {
            read = new TraceTables(events);
            for (Path trace : traces) {
                read.read(trace);
            }
            events.writeParquet(parquet);
            events.close(); // the scratch database goes before the copy: at most one more copy of the table on disk
            try (AtomicOutput o = new AtomicOutput(table)) {
                Files.copy(parquet, o.stream());
                o.finish();
                o.commit();
            }
        } finally {
            Files.deleteIfExists(parquet);
        }
        context.out().println("wrote " + table + " (" + read.rows() + " rows from " + traces.size()
                + (traces.size() == 1 ? " trace" : " traces") + "; left out: " + read.metadataLeftOut() + " metadata events"
                + (read.untimedLeftOut() > 0 ? ", " + read.untimedLeftOut() + " without a usable ts" : "") + ")");
        return ExitCodes.OK;
    }
}
