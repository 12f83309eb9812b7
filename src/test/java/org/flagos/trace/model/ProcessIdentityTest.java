package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ProcessIdentity}: the rank is read from the launchers' variables in their order (torchrun's first), a value
 * that is no rank gives way to the next name, a world size the rank does not fit under is dropped rather than the
 * rank; the record refuses what no job has, in words; and host and pid are this process's.
 */
class ProcessIdentityTest {
    @Test
    void torchrunsNamesComeFirstThenOpenMpiPmiAndSlurm() {
        ProcessIdentity torchrun = ProcessIdentity.ofThisProcess(Map.of("RANK", "3", "WORLD_SIZE", "8", "OMPI_COMM_WORLD_RANK", "5",
                "LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "4"));
        assertEquals(3, torchrun.rank());
        assertEquals(8, torchrun.worldSize());
        assertEquals(1, torchrun.localRank());
        assertEquals(4, torchrun.localWorldSize());
        assertTrue(torchrun.distributed());
        ProcessIdentity slurm = ProcessIdentity.ofThisProcess(Map.of("SLURM_PROCID", "7", "SLURM_NTASKS", "16", "SLURM_LOCALID", "3"));
        assertEquals(7, slurm.rank());
        assertEquals(16, slurm.worldSize());
        assertEquals(3, slurm.localRank());
        assertEquals(-1, slurm.localWorldSize(), "Slurm names no local world size");
        ProcessIdentity mpich = ProcessIdentity.ofThisProcess(Map.of("PMI_RANK", " 2 ", "PMI_SIZE", "4", "MPI_LOCALRANKID", "0",
                "MPI_LOCALNRANKS", "2"));
        assertEquals(2, mpich.rank(), "blanks around a number are read past");
        assertEquals(2, mpich.localWorldSize());
    }

    @Test
    void aValueThatIsNoRankGivesWayToTheNextName() {
        ProcessIdentity id = ProcessIdentity.ofThisProcess(Map.of("RANK", "zero", "OMPI_COMM_WORLD_RANK", "-2", "PMI_RANK", "6"));
        assertEquals(6, id.rank(), "neither a word nor a negative number is a rank");
        ProcessIdentity none = ProcessIdentity.ofThisProcess(Map.of("RANK", "", "WORLD_SIZE", "4"));
        assertEquals(-1, none.rank());
        assertFalse(none.distributed());
        assertEquals(4, none.worldSize());
    }

    @Test
    void aWorldSizeTheRankDoesNotFitUnderIsDroppedNotTheRank() {
        ProcessIdentity id = ProcessIdentity.ofThisProcess(Map.of("RANK", "4", "WORLD_SIZE", "4"));
        assertEquals(4, id.rank());
        assertEquals(-1, id.worldSize());
    }

    @Test
    void hostAndPidAreThisProcesss() throws Exception {
        ProcessIdentity id = ProcessIdentity.ofThisProcess(Map.of());
        assertEquals(ProcessHandle.current().pid(), id.pid());
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        if (Files.isReadable(kernel)) {
            assertEquals(Files.readString(kernel).strip(), id.host(), "the kernel's name, not HOSTNAME or a lookup");
            assertEquals(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip(), id.bootId());
        }
        assertEquals(-1, id.rank());
        assertEquals(-1, id.worldSize());
    }

    @Test
    void whatNoJobHasIsRefusedInWords() {
        assertEquals("ranks and sizes are 0 or more (-1: unknown)",
                assertThrows(IllegalArgumentException.class, () -> new ProcessIdentity(-2, -1, -1, -1, null, 1, null)).getMessage());
        assertEquals("ranks and sizes are 0 or more (-1: unknown)",
                assertThrows(IllegalArgumentException.class, () -> new ProcessIdentity(0, 1, 0, -5, null, 1, null)).getMessage());
        assertEquals("rank 2 is not below the world size 2",
                assertThrows(IllegalArgumentException.class, () -> new ProcessIdentity(2, 2, -1, -1, null, 1, null)).getMessage());
        ProcessIdentity unknownWorld = new ProcessIdentity(9, -1, -1, -1, null, -1, null);
        assertNull(unknownWorld.host());
        ProcessIdentity ranked = unknownWorld.withRank(1, 2);
        assertEquals(1, ranked.rank());
        assertEquals(2, ranked.worldSize());
        assertEquals(unknownWorld.pid(), ranked.pid());
        assertEquals("rank 2 is not below the world size 2",
                assertThrows(IllegalArgumentException.class, () -> unknownWorld.withRank(2, 2)).getMessage());
    }
}
