package org.flagos.trace.vendors.cupti.workload;

import static org.flagos.trace.vendors.cupti.workload.Cuda.check;
import static org.flagos.trace.vendors.cupti.workload.Cuda.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.cuda.cudart.CUkern_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.cudart.cudaIpcMemHandle_t;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.ProcessIdentity;
import org.flagos.trace.model.Workload;
import org.flagos.trace.model.WorkloadFailedException;

/**
 * One rank of two exchanging data through CUDA IPC: {@link #STEPS} steps, each a
 * {@code ProfilerStep#N} op as torch's profiler marks a step, holding the step's computation
 * ({@code fill} and a {@code spin} of about a millisecond), a meeting with the peer, the exchange
 * ({@code allreduce_sum_peer}: this rank's buffer plus the peer's, read in place through the handle
 * the peer exported, its first element checked on the host) and a second meeting, so neither rank overwrites a buffer
 * the other still reads. Rank 1 spins {@link #STRAGGLER_FACTOR} times as long in step
 * {@link #STRAGGLER_STEP}: the straggler the cross-rank summary must name.
 *
 * <p>Set by the environment: {@code RANK} (0 or 1) and {@code WORLD_SIZE} (2), as torchrun sets them,
 * and {@link #DIR_ENV}, a folder both ranks see, fresh for each run (handles and meetings are files
 * there); {@link #TIMEOUT_ENV} (seconds, default 60) bounds every wait for the peer. Rank R uses
 * device {@code R mod (device count)}: with one GPU both ranks share it (NCCL refuses two ranks on one
 * device; CUDA IPC does not).
 */
public final class ExchangeWorkload implements Workload {
    /** The folder both ranks meet in. */
    public static final String DIR_ENV = "FLAGTRACE_EXCHANGE_DIR";
    /** Seconds any wait for the peer may last. */
    public static final String TIMEOUT_ENV = "FLAGTRACE_EXCHANGE_TIMEOUT_S";
    /** Steps run. */
    public static final int STEPS = 8;
    /** The step rank 1 stretches. */
    public static final int STRAGGLER_STEP = 5;
    /** How many times rank 1 spins the usual time in that step. */
    public static final int STRAGGLER_FACTOR = 5;
    private static final int N = 1 << 20; // floats: 4 MiB buffers
    private static final long BYTES = (long) N * Float.BYTES;
    private static final int BLOCKS = (N + 255) / 256;
    private static final long SPIN_CYCLES = 2_000_000; // ~1 ms at the H200's ~1.98 GHz

    private final Map<String, String> env;

    public ExchangeWorkload() {
        this(System.getenv());
    }

    ExchangeWorkload(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public String name() {
        return "exchange";
    }

    @Override
    public String description() {
        return STEPS + " steps of one rank of two: compute, then an all-reduce with the peer through CUDA IPC"
                + " (RANK, WORLD_SIZE=2, " + DIR_ENV + ")";
    }

    @Override
    public void run(HostOpMarker session) throws Exception {
        ProcessIdentity who = ProcessIdentity.ofThisProcess(env);
        String dirName = env.get(DIR_ENV);
        if (who.worldSize() != 2 || who.rank() < 0 || who.rank() > 1 || dirName == null || dirName.isBlank()) {
            throw new WorkloadFailedException("workload exchange runs as one of two ranks: set RANK (0 or 1), WORLD_SIZE=2 and "
                    + DIR_ENV + " (a fresh folder both ranks see); got RANK=" + env.get("RANK") + ", WORLD_SIZE="
                    + env.get("WORLD_SIZE") + ", " + DIR_ENV + "=" + dirName);
        }
        Path dir = Path.of(dirName);
        if (!Files.isDirectory(dir)) {
            throw new WorkloadFailedException("workload exchange: " + DIR_ENV + "=" + dirName + " is not a folder");
        }
        int rank = who.rank();
        FileBarrier peer = new FileBarrier(dir, rank, 1 - rank, timeoutNs());
        try {
            exchange(session, rank, peer);
        } catch (Exception | Error e) {
            peer.fail();
            throw e;
        }
    }

    private long timeoutNs() {
        String text = env.getOrDefault(TIMEOUT_ENV, "60");
        try {
            double seconds = Double.parseDouble(text);
            if (seconds > 0 && seconds < 86_400) {
                return (long) (seconds * 1e9);
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new WorkloadFailedException("workload exchange: " + TIMEOUT_ENV + "=" + text + " is not a number of seconds between 0 and 86400");
    }

    private static void exchange(HostOpMarker session, int rank, FileBarrier peer) {
        CUstream_st stream = new CUstream_st();
        FloatPointer mine = new FloatPointer((Pointer) null);
        FloatPointer out = new FloatPointer((Pointer) null);
        FloatPointer scratch = new FloatPointer((Pointer) null);
        FloatPointer theirs = new FloatPointer((Pointer) null);
        Kernels k;
        try (HostOpMarker.Scope op = session.op("exchange::init")) {
            IntPointer count = new IntPointer(1);
            check(cudart.cudaGetDeviceCount(count), "cudaGetDeviceCount");
            int device = rank % count.get();
            check(cudart.cudaSetDevice(device), "cudaSetDevice");
            check(cudart.cudaFree(null), "cudaFree");
            cudaDeviceProp props = new cudaDeviceProp();
            check(cudart.cudaGetDeviceProperties(props, device), "cudaGetDeviceProperties");
            NvrtcKernels library = new NvrtcKernels(props.major(), props.minor(), NvrtcKernels.EXCHANGE_SOURCE);
            k = new Kernels(library.kernel("_Z4fillPffi"), library.kernel("_Z4spinxPf"),
                    library.kernel("_Z18allreduce_sum_peerPfPKfS1_i"));
            check(cudart.cudaStreamCreateWithFlags(stream, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            check(cudart.cudaMalloc(mine, BYTES), "cudaMalloc");
            check(cudart.cudaMalloc(out, BYTES), "cudaMalloc");
            check(cudart.cudaMalloc(scratch, 256), "cudaMalloc");
        }
        try (HostOpMarker.Scope op = session.op("exchange::open_peer")) {
            cudaIpcMemHandle_t handle = new cudaIpcMemHandle_t();
            check(cudart.cudaIpcGetMemHandle(handle, mine), "cudaIpcGetMemHandle");
            byte[] bytes = new byte[cudart.CUDA_IPC_HANDLE_SIZE];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = handle.reserved(i);
            }
            peer.publish("handle", bytes);
            byte[] received = peer.receive("handle");
            if (received.length != bytes.length) {
                throw new WorkloadFailedException("exchange: the peer's handle has " + received.length + " bytes, not " + bytes.length);
            }
            cudaIpcMemHandle_t peerHandle = new cudaIpcMemHandle_t();
            for (int i = 0; i < received.length; i++) {
                peerHandle.reserved(i, received[i]);
            }
            check(cudart.cudaIpcOpenMemHandle(theirs, peerHandle, cudart.cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
        }
        FloatPointer first = new FloatPointer(1);
        for (int step = 0; step < STEPS; step++) {
            try (HostOpMarker.Scope stepOp = session.op("ProfilerStep#" + step)) {
                float value = (rank + 1) * (step + 1);
                try (HostOpMarker.Scope op = session.op("exchange::compute")) {
                    launch(k.fill(), BLOCKS, 256, stream, mine, value, N);
                    long cycles = rank == 1 && step == STRAGGLER_STEP ? SPIN_CYCLES * STRAGGLER_FACTOR : SPIN_CYCLES;
                    launch(k.spin(), 1, 32, stream, cycles, scratch);
                    check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
                }
                try (HostOpMarker.Scope op = session.op("exchange::wait_peer")) { // the peer's data is ready
                    peer.meet("step-" + step + ".ready");
                }
                try (HostOpMarker.Scope op = session.op("exchange::allreduce")) {
                    launch(k.allreduce(), BLOCKS, 256, stream, out, mine, theirs, N);
                    check(cudart.cudaMemcpyAsync(first, out, Float.BYTES, cudart.cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
                    check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
                    float expected = 3 * (step + 1); // rank 0 fills step+1, rank 1 twice that
                    if (first.get(0) != expected) {
                        throw new WorkloadFailedException("exchange: step " + step + "'s sum is " + first.get(0) + ", not "
                                + expected + ": the peer's buffer was not read as written");
                    }
                }
                try (HostOpMarker.Scope op = session.op("exchange::wait_peer")) { // the peer has read this rank's buffer
                    peer.meet("step-" + step + ".read");
                }
            }
        }
        try (HostOpMarker.Scope op = session.op("exchange::teardown")) {
            check(cudart.cudaIpcCloseMemHandle(theirs), "cudaIpcCloseMemHandle");
            peer.meet("closed"); // the peer's mapping of this rank's buffer is gone before it is freed
            for (Pointer p : new Pointer[] {mine, out, scratch}) {
                check(cudart.cudaFree(p), "cudaFree");
            }
            check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy");
        }
    }

    /** The kernels of {@link NvrtcKernels#EXCHANGE_SOURCE}. */
    private record Kernels(CUkern_st fill, CUkern_st spin, CUkern_st allreduce) {
    }
}
