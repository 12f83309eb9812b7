package org.flagos.trace.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.CaptureSidecars;

/** What {@code replay} says about, and refuses to write over, the files beside a capture ({@link CaptureSidecars}). */
final class Sidecars {
    private Sidecars() {
    }

    /**
     * One line on stderr naming the sidecars read beside the capture because no option named them,
     * or, with no ops at all, why the op table will be empty.
     */
    static void tell(CliContext context, Path capture, Path ops, Path names, String deviceProperties) {
        List<String> used = new ArrayList<>();
        Path opsFound = ops == null ? CaptureSidecars.OPS.found(capture) : null;
        add(used, opsFound, CaptureSidecars.OPS);
        add(used, names == null ? CaptureSidecars.NAMES.found(capture) : null, CaptureSidecars.NAMES);
        add(used, deviceProperties == null ? CaptureSidecars.DEVICES.found(capture) : null, CaptureSidecars.DEVICES);
        add(used, CaptureSidecars.CLOCK.found(capture), CaptureSidecars.CLOCK);
        add(used, CaptureSidecars.PROCESS.found(capture), CaptureSidecars.PROCESS);
        add(used, CaptureSidecars.MARKS.found(capture), CaptureSidecars.MARKS);
        add(used, CaptureSidecars.WINDOW_END.found(capture), CaptureSidecars.WINDOW_END);
        if (!used.isEmpty()) {
            context.err().println("flagtrace: read beside the capture: " + String.join(", ", used));
        }
        if (ops == null && opsFound == null) {
            context.err().println("flagtrace: no host ops (no --ops, and no " + CaptureSidecars.OPS.besides(capture).getFileName()
                    + " beside the capture): the op table stays empty and device records are in no op");
        }
    }

    private static void add(List<String> used, Path path, CaptureSidecars sidecar) {
        if (path != null) {
            used.add(path.getFileName() + " (" + sidecar.what() + ")");
        }
    }
}
