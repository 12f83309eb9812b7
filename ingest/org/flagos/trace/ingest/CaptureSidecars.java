package org.flagos.trace.ingest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files a live session saves beside a capture {@code NAME.fltrbuf[.gz]}, found one way for every
 * reader: host ops ({@code NAME.ops.jsonl}), the kernel name table ({@code NAME.names.tsv}), device
 * properties ({@code NAME.devices.json}) the device clock mapping ({@code NAME.clock.json}), who captured with the clock
 * anchors ({@code NAME.process.json}), the marks {@code flagtrace run} received ({@code NAME.marks.jsonl}) and how its
 * window ended ({@code NAME.window-end.json}).
 */
public enum CaptureSidecars {
    /** Host op ranges and the capture window. */
    OPS(".ops.jsonl", "host ops"),
    /** Kernel names by handle. */
    NAMES(".names.tsv", "kernel names"),
    /** Device properties for the occupancy fields. */
    DEVICES(".devices.json", "device properties"),
    /** The mapping of the vendor's clock to epoch ns. */
    CLOCK(".clock.json", "device clock"),
    /** Who captured (rank, host, pid) and the clock anchors, for {@code flagtrace merge}. */
    PROCESS(".process.json", "rank and clock anchors"),
    /** Marks (instants a program put on its threads: NVTX's and mstx's marks), written by {@code flagtrace run}. */
    MARKS(".marks.jsonl", "marks"),
    /** How a window of {@code flagtrace run} ended: the trace's fields written after its events. */
    WINDOW_END(".window-end.json", "how the window ended");

    private final String suffix;
    private final String what;

    CaptureSidecars(String suffix, String what) {
        this.suffix = suffix;
        this.what = what;
    }

    /** This sidecar's path beside {@code capture}: {@code .gz} and {@code .fltrbuf} stripped, the suffix added. */
    public Path besides(Path capture) {
        String file = capture.getFileName().toString().replaceFirst("\\.gz$", "").replaceFirst("\\.fltrbuf$", "");
        return capture.resolveSibling(file + suffix);
    }

    /**
     * This sidecar beside {@code capture} when it exists there (a node of any kind: a FIFO is then
     * refused by its reader, never waited on), else null; ops are also found gzip-compressed
     * ({@code NAME.ops.jsonl.gz}).
     */
    public Path found(Path capture) {
        for (Path path : places(capture)) {
            if (Files.exists(path)) {
                return path;
            }
        }
        return null;
    }

    /** Every path this sidecar of {@code capture} is looked for at, in order. */
    public List<Path> places(Path capture) {
        Path path = besides(capture);
        return this == OPS ? List.of(path, path.resolveSibling(path.getFileName() + ".gz")) : List.of(path);
    }

    /** What the sidecar holds, in words. */
    public String what() {
        return what;
    }
}
