package org.flagos.trace.vendors.cupti.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.locks.LockSupport;
import org.flagos.trace.model.WorkloadFailedException;

/**
 * Two processes meeting through files in a folder both see: each names a point by creating
 * {@code POINT.rank-R} and waits for the peer's. A wait ends with one {@link WorkloadFailedException}
 * line when the peer has not come within the timeout, or as soon as the peer has left
 * {@code failed.rank-P} (see {@link #fail}), so neither rank hangs on the other.
 */
final class FileBarrier {
    /** Between looks at the folder: short against a step (ms), cheap (one stat each). */
    private static final long POLL_NS = 20_000;
    /** The peer's failure marker is looked for this often, in polls (about every 2 ms). */
    private static final int FAILURE_EVERY = 100;

    private final Path dir;
    private final int rank;
    private final int peer;
    private final long timeoutNs;

    FileBarrier(Path dir, int rank, int peer, long timeoutNs) {
        this.dir = dir;
        this.rank = rank;
        this.peer = peer;
        this.timeoutNs = timeoutNs;
    }

    /** Arrives at {@code point} and returns once the peer has arrived too. */
    void meet(String point) {
        try {
            Files.createFile(dir.resolve(point + ".rank-" + rank));
        } catch (FileAlreadyExistsException e) {
            throw new WorkloadFailedException("exchange: " + dir.resolve(point + ".rank-" + rank) + " exists already: another run"
                    + " with rank " + rank + " used this folder; give each run a fresh one");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await(point);
    }

    /** Publishes {@code bytes} as {@code name.rank-R}, whole or not at all (written aside, then moved). */
    void publish(String name, byte[] bytes) {
        try {
            Path aside = dir.resolve(name + ".rank-" + rank + ".part");
            Files.write(aside, bytes);
            Files.move(aside, dir.resolve(name + ".rank-" + rank), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for the peer's {@code name.rank-P} and returns its bytes. */
    byte[] receive(String name) {
        try {
            return Files.readAllBytes(await(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Leaves the failure marker, so the peer's next wait ends at once instead of at its timeout. */
    void fail() {
        try {
            Files.write(dir.resolve("failed.rank-" + rank), new byte[0]);
        } catch (IOException | RuntimeException e) {
            // best effort: the peer's timeout still ends its wait
        }
    }

    private Path await(String point) {
        Path theirs = dir.resolve(point + ".rank-" + peer);
        Path failed = dir.resolve("failed.rank-" + peer);
        long start = System.nanoTime();
        for (int polls = 0; !Files.exists(theirs); polls++) {
            if (polls % FAILURE_EVERY == 0 && Files.exists(failed)) {
                throw new WorkloadFailedException("exchange: rank " + peer + " failed (its own output says why); rank " + rank
                        + " stops at " + point);
            }
            if (System.nanoTime() - start > timeoutNs) {
                throw new WorkloadFailedException("exchange: rank " + rank + " waited " + timeoutNs / 1_000_000_000.0 + " s for rank "
                        + peer + " at " + point + " (no " + theirs + "); is rank " + peer + " running with the same folder?");
            }
            LockSupport.parkNanos(POLL_NS);
        }
        return theirs;
    }
}
