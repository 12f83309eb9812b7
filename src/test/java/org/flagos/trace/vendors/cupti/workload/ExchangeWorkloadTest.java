package org.flagos.trace.vendors.cupti.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.flagos.trace.model.WorkloadFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The exchange workload's checks of its environment, each failing in its words before any CUDA call
 * (so without a GPU): one of exactly two ranks, a folder both see, a timeout between 0 and a day.
 * The exchange itself needs two GPUs and is run by the device scripts.
 */
class ExchangeWorkloadTest {
    @TempDir
    Path dir;

    private static String failure(Map<String, String> env) {
        return assertThrows(WorkloadFailedException.class, () -> new ExchangeWorkload(env).run(null)).getMessage();
    }

    private Map<String, String> env(String rank, String world) {
        Map<String, String> env = new HashMap<>();
        env.put("RANK", rank);
        env.put("WORLD_SIZE", world);
        env.put(ExchangeWorkload.DIR_ENV, dir.toString());
        return env;
    }

    @Test
    void withoutRanksItSaysWhatToSet() {
        assertEquals("workload exchange runs as one of two ranks: set RANK (0 or 1), WORLD_SIZE=2 and FLAGTRACE_EXCHANGE_DIR"
                + " (a fresh folder both ranks see); got RANK=null, WORLD_SIZE=null, FLAGTRACE_EXCHANGE_DIR=null", failure(Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2:2", "0:3", "1:1", "-1:2"})
    void onlyRankZeroOrOneOfTwo(String rankAndWorld) {
        String[] rw = rankAndWorld.split(":");
        assertEquals("workload exchange runs as one of two ranks: set RANK (0 or 1), WORLD_SIZE=2 and FLAGTRACE_EXCHANGE_DIR"
                + " (a fresh folder both ranks see); got RANK=" + rw[0] + ", WORLD_SIZE=" + rw[1] + ", FLAGTRACE_EXCHANGE_DIR=" + dir,
                failure(env(rw[0], rw[1])));
    }

    @Test
    void theFolderMustExist() throws Exception {
        Map<String, String> env = env("0", "2");
        Path file = Files.writeString(dir.resolve("not-a-folder"), "x");
        env.put(ExchangeWorkload.DIR_ENV, file.toString());
        assertEquals("workload exchange: FLAGTRACE_EXCHANGE_DIR=" + file + " is not a folder", failure(env));
        env.put(ExchangeWorkload.DIR_ENV, " ");
        assertEquals(true, failure(env).startsWith("workload exchange runs as one of two ranks"), "a blank folder is unset");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "86400", "1e6", "soon", "NaN"})
    void theTimeoutIsSecondsBetweenZeroAndADay(String timeout) {
        Map<String, String> env = env("1", "2");
        env.put(ExchangeWorkload.TIMEOUT_ENV, timeout);
        assertEquals("workload exchange: FLAGTRACE_EXCHANGE_TIMEOUT_S=" + timeout + " is not a number of seconds between 0 and 86400",
                failure(env));
    }

    @Test
    void itNamesAndDescribesItself() {
        ExchangeWorkload w = new ExchangeWorkload(Map.of());
        assertEquals("exchange", w.name());
        assertEquals("8 steps of one rank of two: compute, then an all-reduce with the peer through CUDA IPC"
                + " (RANK, WORLD_SIZE=2, FLAGTRACE_EXCHANGE_DIR)", w.description());
    }
}
