package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CapturePipeline;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.journal.JournalWindow;

/**
 * The inputs of {@code merge} as Chrome JSON traces: a trace as it is; a capture ({@code .fltrbuf},
 * its files beside it read as {@code replay} reads them) or a journal directory replayed first into a
 * temporary trace beside the output (deleted when the merge is done), through the replay path, so
 * their rank and clock anchors come along.
 */
final class MergeInputs implements AutoCloseable {
    final List<Path> traces = new ArrayList<>();
    final List<String> sources = new ArrayList<>();
    private final List<Path> temporaries = new ArrayList<>();
    /** Whether a capture was cut short or a journal damaged: the merge then ends with exit 3, as their replay does. */
    boolean damaged;
    private final CliContext context;

    MergeInputs(CliContext context) {
        this.context = context;
    }

    /** Adds {@code input}, replaying it into {@code scratch} first when it is a capture or a journal. */
    void add(Path input, Path scratch) throws IOException, InterruptedException {
        sources.add(input.toString());
        String name = input.getFileName() == null ? "" : input.getFileName().toString();
        boolean capture = name.endsWith(".fltrbuf") || name.endsWith(".fltrbuf.gz");
        boolean journal = Files.isDirectory(input);
        if (!capture && !journal) {
            traces.add(input);
            return;
        }
        Path trace = AtomicOutput.scratchFile(scratch, "merge", ".json"); // a killed merge's is removed by the next
        temporaries.add(trace);
        try (AtomicOutput out = new AtomicOutput(trace)) {
            if (capture) {
                CaptureReplay.Request request = CaptureReplay.request(input, CaptureSidecars.OPS.found(input), null, List.of(), Map.of());
                CaptureReplay.Result result = CaptureReplay.run(request, out.stream());
                if (result.truncated()) {
                    damaged = true;
                    context.err().println("flagtrace: warning: " + input + " is cut short (" + result.truncation()
                            + "); merged with every whole record before the cut");
                }
            } else {
                JournalReplay.Result result;
                try {
                    result = JournalReplay.run(JournalReplay.Request.of(input, JournalWindow.ALL), out.stream());
                } catch (JournalReplay.WindowException e) {
                    throw new UsageException(e.getMessage());
                }
                damaged |= !result.warnings().isEmpty();
                for (String warning : result.warnings()) {
                    context.err().println("flagtrace: warning: " + warning);
                }
            }
            out.commit();
        }
        traces.add(trace);
    }

    /** Deletes the temporary traces. */
    @Override
    public void close() {
        for (Path t : temporaries) {
            try {
                Files.deleteIfExists(t);
            } catch (IOException e) {
                context.err().println("flagtrace: warning: could not delete " + t + " (" + e.getMessage() + ")");
            }
        }
    }
}
