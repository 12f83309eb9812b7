package org.flagos.trace.model;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Who captured: the process's rank in a distributed job (as torch's {@code distributedInfo} says it),
 * its host and pid. A field not known is -1 (numbers) or null (text).
 *
 * @param rank           the global rank, or -1 when the process is not one of a job's ranks
 * @param worldSize      the number of ranks, or -1
 * @param localRank      the rank on this host, or -1
 * @param localWorldSize the number of ranks on this host, or -1
 * @param host           the host's name, or null
 * @param pid            the process id, or -1
 * @param bootId         this boot of the host ({@code /proc/sys/kernel/random/boot_id}): processes with
 *                       the same one share one monotonic clock; null when unknown
 */
public record ProcessIdentity(int rank, int worldSize, int localRank, int localWorldSize, String host, long pid,
                              String bootId) {
    /** torchrun's names first, then Open MPI's, MPICH/PMI's and Slurm's. */
    static final String[] RANK = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};
    static final String[] WORLD_SIZE = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
    static final String[] LOCAL_RANK = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
    static final String[] LOCAL_WORLD_SIZE = {"LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};

    public ProcessIdentity {
        if (rank < -1 || worldSize < -1 || localRank < -1 || localWorldSize < -1) {
            throw new IllegalArgumentException("ranks and sizes are 0 or more (-1: unknown)");
        }
        if (rank >= 0 && worldSize >= 0 && rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is not below the world size " + worldSize);
        }
    }

    /** This process, its rank read from {@code env} (the process environment outside tests). */
    public static ProcessIdentity ofThisProcess(Map<String, String> env) {
        int rank = first(env, RANK);
        int world = first(env, WORLD_SIZE);
        if (rank >= 0 && world >= 0 && rank >= world) {
            world = -1; // a launcher's leftovers disagree: keep the rank, drop what cannot be
        }
        return new ProcessIdentity(rank, world, first(env, LOCAL_RANK), first(env, LOCAL_WORLD_SIZE),
                hostName(env), ProcessHandle.current().pid(), thisBootId());
    }

    /** This identity with the rank and world size given (a program that knows them better than its environment). */
    public ProcessIdentity withRank(int rank, int worldSize) {
        return new ProcessIdentity(rank, worldSize, localRank, localWorldSize, host, pid, bootId);
    }

    /** True when a rank is known: only then does the trace carry torch's {@code distributedInfo}. */
    public boolean distributed() {
        return rank >= 0;
    }

    private static int first(Map<String, String> env, String[] names) {
        for (String name : names) {
            String value = env.get(name);
            if (value != null) {
                try {
                    int n = Integer.parseInt(value.strip());
                    if (n >= 0) {
                        return n;
                    }
                } catch (NumberFormatException e) {
                    // not a rank: the next name may hold one
                }
            }
        }
        return -1;
    }

    /** The kernel's host name; no name lookup (a DNS query could stall a session's start). */
    private static String hostName(Map<String, String> env) {
        String name = readLine(Path.of("/proc/sys/kernel/hostname"));
        if (name == null) {
            name = env.get("HOSTNAME");
        }
        return name == null || name.isBlank() ? null : name.strip();
    }

    private static String thisBootId() {
        return readLine(Path.of("/proc/sys/kernel/random/boot_id"));
    }

    private static String readLine(Path path) {
        try {
            String text = new String(Files.readAllBytes(path), StandardCharsets.UTF_8).strip();
            return text.isEmpty() || text.length() > 255 ? null : text;
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            return null;
        }
    }
}
