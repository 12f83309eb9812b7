package org.flagos.trace.vendors.cupti.workload;

import static org.flagos.trace.vendors.cupti.workload.Cuda.check;
import static org.flagos.trace.vendors.cupti.workload.Cuda.launch;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUgraph_st;
import org.bytedeco.cuda.cudart.CUkern_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.flagos.trace.model.HostOpMarker;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.Workload;

/**
 * The kinds workload: the work of {@code benchmarks/device/kinds-capture/kinds_capture.cu} (and of
 * its torch twin, {@code torch_kinds.py}) from Java, so the record kinds added since the seed are
 * captured live through flagtrace's own tracer: every synchronization CUDA reports (stream, event,
 * stream-wait-event, event query, device and context), a CUDA graph captured from a stream and
 * launched three times, {@code cudaMalloc}/{@code cudaFree} and their stream-ordered forms, managed
 * memory migrated both ways (unified-memory records), and ops
 * carrying torch-style arguments, and NVTX ranges, marks and a domain pushed from Java through a
 * small JNI library ({@link Nvtx}: CUDA 13's NVTX is header-only and the CUDA presets bind none of it).
 *
 * <p>{@link #runSteps} runs the same sections as torch_kinds.py's scheduled run does: set-up once, then
 * each step's work in one {@code kinds::step} op (the graph captured at set-up, launched each step).
 */
public final class KindsWorkload implements Workload {
    private static final int N = 1 << 20; // floats: 4 MiB buffers
    private static final long BYTES = (long) N * Float.BYTES;
    private static final long SPIN_CYCLES = 400_000; // ~0.2 ms at ~2 GHz: long enough that a sync waits
    private static final int BLOCKS = (N + 255) / 256;

    @Override
    public String name() {
        return "kinds";
    }

    @Override
    public String description() {
        return "every synchronization, a CUDA graph launched 3 times, NVTX ranges, device allocations, managed memory, ops with args";
    }

    @Override
    public void run(HostOpMarker session) throws Exception {
        Resources r = setUp(session);
        baseline(session, r);
        syncs(session, r);
        graph(session, r);
        nvtx(session, r);
        memory(session, r.k(), r.s1());
        managed(session, r.k(), r.s1(), r.a(), r.b());
        peerCopy(session, r.a(), r.b());
        tearDown(session, r);
    }

    @Override
    public boolean runsInSteps() {
        return true;
    }

    /**
     * torch_kinds.py's scheduled run: set-up (init, allocations, the graph captured and instantiated)
     * before the first step's work, as torch's runs before its profiler starts; each step's work in one
     * {@code kinds::step} op, then {@code step}; the tear-down after the last step.
     */
    @Override
    public void runSteps(HostOpMarker session, Runnable step, int steps) throws Exception {
        if (steps < 1) {
            throw new IllegalArgumentException("steps must be at least 1, not " + steps);
        }
        Resources r = setUp(session);
        Graph g = graphCapture(session, r);
        for (int i = 0; i < steps; i++) {
            try (HostOpMarker.Scope op = session.op("kinds::step")) {
                baseline(session, r);
                syncs(session, r);
                graphStep(session, r, g);
                nvtx(session, r);
                memory(session, r.k(), r.s1());
                managed(session, r.k(), r.s1(), r.a(), r.b());
                peerCopy(session, r.a(), r.b());
            }
            step.run();
        }
        graphDestroy(g);
        tearDown(session, r);
    }

    /** What set-up made and the steps use: streams, events, kernels, device and host buffers. */
    private record Resources(Kernels k, CUstream_st s1, CUstream_st s2, CUstream_st sg, CUevent_st ev1, CUevent_st ev2,
                             FloatPointer a, FloatPointer b, FloatPointer c, FloatPointer small, FloatPointer pinned,
                             FloatPointer pageable) {
    }

    private static Resources setUp(HostOpMarker session) {
        CUstream_st s1 = new CUstream_st();
        CUstream_st s2 = new CUstream_st();
        CUstream_st sg = new CUstream_st();
        CUevent_st ev1 = new CUevent_st();
        CUevent_st ev2 = new CUevent_st();
        Kernels k;
        try (HostOpMarker.Scope op = session.op("kinds::init")) { // context creation and lazy loading land here
            check(cudart.cudaSetDevice(0), "cudaSetDevice");
            check(cudart.cudaFree(null), "cudaFree");
            cudaDeviceProp props = new cudaDeviceProp();
            check(cudart.cudaGetDeviceProperties(props, 0), "cudaGetDeviceProperties");
            NvrtcKernels library = new NvrtcKernels(props.major(), props.minor(), NvrtcKernels.KINDS_SOURCE);
            k = new Kernels(library.kernel("_Z4fillPffi"), library.kernel("_Z4axpyPfPKffi"),
                    library.kernel("_Z5scalePffi"), library.kernel("_Z4spinxPf"));
            check(cudart.cudaStreamCreateWithFlags(s1, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            check(cudart.cudaStreamCreateWithFlags(s2, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            check(cudart.cudaStreamCreateWithFlags(sg, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            check(cudart.cudaEventCreate(ev1), "cudaEventCreate");
            check(cudart.cudaEventCreateWithFlags(ev2, cudart.cudaEventDisableTiming), "cudaEventCreateWithFlags");
        }
        FloatPointer a = new FloatPointer((Pointer) null);
        FloatPointer b = new FloatPointer((Pointer) null);
        FloatPointer c = new FloatPointer((Pointer) null);
        FloatPointer small = new FloatPointer((Pointer) null);
        FloatPointer pinned = new FloatPointer((Pointer) null);
        try (HostOpMarker.Scope op = session.op("kinds::alloc")) {
            check(cudart.cudaMalloc(a, BYTES), "cudaMalloc");
            check(cudart.cudaMalloc(b, BYTES), "cudaMalloc");
            check(cudart.cudaMalloc(c, BYTES), "cudaMalloc");
            check(cudart.cudaMalloc(small, 256), "cudaMalloc");
            check(cudart.cudaMallocHost(pinned, BYTES), "cudaMallocHost");
        }
        FloatPointer pageable = new FloatPointer(N);
        return new Resources(k, s1, s2, sg, ev1, ev2, a, b, c, small, pinned, pageable);
    }

    private static void tearDown(HostOpMarker session, Resources r) {
        try (HostOpMarker.Scope op = session.op("kinds::teardown")) {
            for (Pointer p : new Pointer[] {r.a(), r.b(), r.c(), r.small()}) {
                check(cudart.cudaFree(p), "cudaFree");
            }
            check(cudart.cudaFreeHost(r.pinned()), "cudaFreeHost");
            check(cudart.cudaEventDestroy(r.ev1()), "cudaEventDestroy");
            check(cudart.cudaEventDestroy(r.ev2()), "cudaEventDestroy");
            for (CUstream_st s : new CUstream_st[] {r.s1(), r.s2(), r.sg()}) {
                check(cudart.cudaStreamDestroy(s), "cudaStreamDestroy");
            }
        }
        check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    /**
     * A copy to device 1 when there is one (CUPTI's MEMCPY2, a peer-to-peer record), as the C++ capture
     * makes it; with one GPU a copy of the device to itself, which CUPTI reports as a device-to-device
     * MEMCPY (measured on the H200).
     */
    private static void peerCopy(HostOpMarker session, FloatPointer a, FloatPointer b) {
        org.bytedeco.javacpp.IntPointer count = new org.bytedeco.javacpp.IntPointer(1);
        check(cudart.cudaGetDeviceCount(count), "cudaGetDeviceCount");
        try (HostOpMarker.Scope op = session.op("kinds::peer_copy")) {
            if (count.get() > 1) {
                FloatPointer peer = new FloatPointer((Pointer) null);
                check(cudart.cudaSetDevice(1), "cudaSetDevice");
                check(cudart.cudaMalloc(peer, BYTES), "cudaMalloc");
                check(cudart.cudaSetDevice(0), "cudaSetDevice");
                int access = cudart.cudaDeviceEnablePeerAccess(1, 0); // refused without P2P: the copy then stages
                if (access != cudart.cudaSuccess && access != cudart.cudaErrorPeerAccessAlreadyEnabled) {
                    System.err.println("kinds: cudaDeviceEnablePeerAccess(1) returned " + access);
                }
                check(cudart.cudaMemcpyPeer(peer, 1, a, 0, BYTES), "cudaMemcpyPeer");
                check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                check(cudart.cudaFree(peer), "cudaFree");
            } else {
                check(cudart.cudaMemcpyPeer(b, 0, a, 0, BYTES), "cudaMemcpyPeer");
            }
            check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        }
    }

    private static void baseline(HostOpMarker session, Resources r) {
        OpArgs vector = OpArgs.builder().inputDims(new long[] {N}).inputTypes("float").build();
        try (HostOpMarker.Scope op = session.op("kinds::baseline")) {
            try (HostOpMarker.Scope x = session.op("kinds::copy_h2d", vector)) {
                check(cudart.cudaMemcpy(r.a(), r.pageable(), BYTES, cudart.cudaMemcpyHostToDevice), "cudaMemcpy");
                check(cudart.cudaMemcpyAsync(r.b(), r.pinned(), BYTES, cudart.cudaMemcpyHostToDevice, r.s1()), "cudaMemcpyAsync");
            }
            try (HostOpMarker.Scope x = session.op("kinds::fill", OpArgs.builder().inputDims(new long[] {N}, new long[0])
                    .inputTypes("float", "Scalar").concreteInputs("", "2.0").build())) {
                launch(r.k().fill(), BLOCKS, 256, null, r.c(), 2.0f, N);
            }
            try (HostOpMarker.Scope x = session.op("kinds::axpy", OpArgs.builder().inputDims(new long[] {N}, new long[] {N})
                    .inputTypes("float", "float").add("alpha", 0.5).build())) {
                launch(r.k().axpy(), BLOCKS, 256, null, r.c(), r.a(), 0.5f, N);
            }
            try (HostOpMarker.Scope x = session.op("kinds::zeros", OpArgs.builder().add("bytes", 256).build())) {
                check(cudart.cudaMemsetAsync(r.small(), 0, 256, r.s1()), "cudaMemsetAsync");
            }
            try (HostOpMarker.Scope x = session.op("kinds::copy_d2h", vector)) {
                check(cudart.cudaMemcpyAsync(r.pinned(), r.c(), BYTES, cudart.cudaMemcpyDeviceToHost, null), "cudaMemcpyAsync");
                check(cudart.cudaMemcpy(r.pageable(), r.c(), 4096, cudart.cudaMemcpyDeviceToHost), "cudaMemcpy");
            }
        }
    }

    private static void syncs(HostOpMarker session, Resources r) {
        try (HostOpMarker.Scope op = session.op("kinds::sync")) {
            try (HostOpMarker.Scope x = session.op("kinds::stream_sync")) {
                launch(r.k().spin(), 1, 32, r.s1(), SPIN_CYCLES, r.small());
                check(cudart.cudaStreamSynchronize(r.s1()), "cudaStreamSynchronize");
            }
            try (HostOpMarker.Scope x = session.op("kinds::event_sync")) {
                launch(r.k().spin(), 1, 32, r.s1(), SPIN_CYCLES, r.small());
                check(cudart.cudaEventRecord(r.ev1(), r.s1()), "cudaEventRecord");
                check(cudart.cudaEventSynchronize(r.ev1()), "cudaEventSynchronize");
            }
            try (HostOpMarker.Scope x = session.op("kinds::stream_wait_event")) {
                launch(r.k().spin(), 1, 32, r.s1(), SPIN_CYCLES, r.small());
                check(cudart.cudaEventRecord(r.ev2(), r.s1()), "cudaEventRecord");
                check(cudart.cudaStreamWaitEvent(r.s2(), r.ev2(), 0), "cudaStreamWaitEvent");
                launch(r.k().scale(), BLOCKS, 256, r.s2(), r.c(), 0.5f, N);
                check(cudart.cudaStreamSynchronize(r.s2()), "cudaStreamSynchronize");
            }
            try (HostOpMarker.Scope x = session.op("kinds::event_query")) {
                launch(r.k().spin(), 1, 32, r.s1(), SPIN_CYCLES, r.small());
                check(cudart.cudaEventRecord(r.ev1(), r.s1()), "cudaEventRecord");
                int status;
                while ((status = cudart.cudaEventQuery(r.ev1())) == cudart.cudaErrorNotReady) {
                    Thread.onSpinWait();
                }
                check(status, "cudaEventQuery");
            }
            try (HostOpMarker.Scope x = session.op("kinds::device_sync")) {
                launch(r.k().spin(), 1, 32, r.s2(), SPIN_CYCLES, r.small());
                check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            }
            try (HostOpMarker.Scope x = session.op("kinds::context_sync")) {
                launch(r.k().spin(), 1, 32, r.s1(), SPIN_CYCLES, r.small());
                check(cudart.cuCtxSynchronize(), "cuCtxSynchronize");
            }
        }
    }

    /** The graph section of {@link #run}: captured, instantiated, launched three times and destroyed in one op. */
    private static void graph(HostOpMarker session, Resources r) {
        try (HostOpMarker.Scope op = session.op("kinds::graph")) {
            Graph g = graphCapture(session, r);
            graphReplay(session, r.sg(), g);
            graphDestroy(g);
        }
    }

    /** A step's graph section, as torch_kinds.py's: the graph captured at set-up launched three times. */
    private static void graphStep(HostOpMarker session, Resources r, Graph g) {
        try (HostOpMarker.Scope op = session.op("kinds::graph")) {
            graphReplay(session, r.sg(), g);
        }
    }

    private static Graph graphCapture(HostOpMarker session, Resources r) {
        CUgraph_st graph = new CUgraph_st();
        CUgraphExec_st exec = new CUgraphExec_st();
        try (HostOpMarker.Scope x = session.op("kinds::graph_capture")) {
            // Captured, not run: CUPTI reports the API calls; the device work comes at launch.
            check(cudart.cudaStreamBeginCapture(r.sg(), cudart.cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
            launch(r.k().fill(), BLOCKS, 256, r.sg(), r.a(), 1.0f, N);
            launch(r.k().axpy(), BLOCKS, 256, r.sg(), r.b(), r.a(), 2.0f, N);
            check(cudart.cudaMemcpyAsync(r.c(), r.b(), BYTES, cudart.cudaMemcpyDeviceToDevice, r.sg()), "cudaMemcpyAsync");
            check(cudart.cudaMemsetAsync(r.small(), 0, 256, r.sg()), "cudaMemsetAsync");
            launch(r.k().scale(), BLOCKS, 256, r.sg(), r.c(), 0.25f, N);
            check(cudart.cudaStreamEndCapture(r.sg(), graph), "cudaStreamEndCapture");
        }
        try (HostOpMarker.Scope x = session.op("kinds::graph_instantiate")) {
            check(cudart.cudaGraphInstantiate(exec, graph, 0L), "cudaGraphInstantiate");
        }
        return new Graph(graph, exec);
    }

    private static void graphReplay(HostOpMarker session, CUstream_st sg, Graph g) {
        try (HostOpMarker.Scope x = session.op("kinds::graph_replay")) {
            for (int i = 0; i < 3; i++) {
                try (HostOpMarker.Scope launchOp = session.op("kinds::graph_launch")) {
                    check(cudart.cudaGraphLaunch(g.exec(), sg), "cudaGraphLaunch");
                }
            }
            check(cudart.cudaStreamSynchronize(sg), "cudaStreamSynchronize");
        }
    }

    private static void graphDestroy(Graph g) {
        check(cudart.cudaGraphExecDestroy(g.exec()), "cudaGraphExecDestroy");
        check(cudart.cudaGraphDestroy(g.graph()), "cudaGraphDestroy");
    }

    /** A CUDA graph and its executable instance. */
    private record Graph(CUgraph_st graph, CUgraphExec_st exec) {
    }

    /**
     * NVTX ranges, marks and a domain from Java, as the C++ capture's {@code kinds::nvtx} makes them
     * (each range around device work), and a range no op encloses, whose kernel the range claims.
     * Skipped, saying why on stderr, without the JNI library ({@link Nvtx}).
     */
    private static void nvtx(HostOpMarker session, Resources r) {
        if (Nvtx.unavailableReason() != null) {
            System.err.println("kinds: no NVTX section: " + Nvtx.unavailableReason());
            return;
        }
        try (HostOpMarker.Scope op = session.op("kinds::nvtx")) {
            Nvtx.rangePush("nvtx::outer");
            launch(r.k().fill(), BLOCKS, 256, r.s1(), r.a(), 3.0f, N);
            Nvtx.rangePush("nvtx::inner");
            launch(r.k().scale(), BLOCKS, 256, r.s1(), r.a(), 2.0f, N);
            Nvtx.rangePop();
            Nvtx.rangePop();
            long range = Nvtx.rangeStart("nvtx::start_end");
            check(cudart.cudaMemsetAsync(r.small(), 1, 256, r.s1()), "cudaMemsetAsync");
            Nvtx.rangeEnd(range);
            Nvtx.mark("nvtx::mark");
            Nvtx.rangePushEx("nvtx::push_ex", 0xFF76B900, 7, 42);
            launch(r.k().axpy(), BLOCKS, 256, r.s1(), r.b(), r.a(), 1.0f, N);
            Nvtx.rangePop();
            long domain = Nvtx.domainCreate("kinds.domain");
            Nvtx.domainRangePushEx(domain, "nvtx::domain_range", 0xFF0000FF, 3, 1234);
            launch(r.k().scale(), BLOCKS, 256, r.s1(), r.b(), 0.5f, N);
            Nvtx.domainRangePop(domain);
            long domainRange = Nvtx.domainRangeStartEx(domain, "nvtx::domain_start_end", 0xFFFF0000, 4, 99);
            launch(r.k().fill(), BLOCKS, 256, r.s1(), r.c(), 0.0f, N);
            Nvtx.domainRangeEnd(domain, domainRange);
            check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            Nvtx.domainDestroy(domain);
        }
        Nvtx.rangePush("nvtx::no_op"); // no op encloses it: its kernel has no External id
        launch(r.k().fill(), BLOCKS, 256, r.s1(), r.a(), 4.0f, N);
        Nvtx.rangePop();
        check(cudart.cudaStreamSynchronize(r.s1()), "cudaStreamSynchronize");
    }

    /**
     * Managed memory, as the C++ capture's {@code kinds::managed}: pages first written on the host, then
     * touched by a kernel (GPU page faults, host-to-device migrations), read back on the host (CPU page
     * faults, device-to-host migrations), prefetched both ways, copied with {@code cudaMemcpyDefault}
     * (MEMCPY records of managed memory) and freed: CUPTI's UNIFIED_MEMORY_COUNTER records.
     */
    private static void managed(HostOpMarker session, Kernels k, CUstream_st s1, FloatPointer a, FloatPointer b) {
        long managedBytes = 64L << 20;
        int floats = (int) (managedBytes / Float.BYTES);
        try (HostOpMarker.Scope op = session.op("kinds::managed")) {
            FloatPointer m = new FloatPointer((Pointer) null);
            try (HostOpMarker.Scope x = session.op("kinds::managed_alloc")) {
                check(cudart.cudaMallocManaged(m, managedBytes, cudart.cudaMemAttachGlobal), "cudaMallocManaged");
            }
            FloatPointer host = new FloatPointer(m).capacity(floats);
            try (HostOpMarker.Scope x = session.op("kinds::managed_host_write")) {
                for (int i = 0; i < floats; i += 1024) {
                    host.put(i, 1.0f);
                }
            }
            try (HostOpMarker.Scope x = session.op("kinds::managed_gpu_touch")) {
                launch(k.scale(), (floats + 255) / 256, 256, null, m, 2.0f, floats);
                check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            }
            float sum = 0;
            try (HostOpMarker.Scope x = session.op("kinds::managed_host_read")) {
                for (int i = 0; i < floats; i += 1024) {
                    sum += host.get(i);
                }
            }
            try (HostOpMarker.Scope x = session.op("kinds::managed_prefetch")) {
                org.bytedeco.cuda.cudart.cudaMemLocation toDevice = new org.bytedeco.cuda.cudart.cudaMemLocation();
                toDevice.type(cudart.cudaMemLocationTypeDevice).id(0);
                org.bytedeco.cuda.cudart.cudaMemLocation toHost = new org.bytedeco.cuda.cudart.cudaMemLocation();
                toHost.type(cudart.cudaMemLocationTypeHost).id(0);
                check(cudart.cudaMemPrefetchAsync(m, managedBytes, toDevice, 0, s1), "cudaMemPrefetchAsync");
                check(cudart.cudaStreamSynchronize(s1), "cudaStreamSynchronize");
                check(cudart.cudaMemPrefetchAsync(m, managedBytes, toHost, 0, s1), "cudaMemPrefetchAsync");
                check(cudart.cudaStreamSynchronize(s1), "cudaStreamSynchronize");
            }
            try (HostOpMarker.Scope x = session.op("kinds::managed_copy")) {
                check(cudart.cudaMemcpy(a, m, BYTES, cudart.cudaMemcpyDefault), "cudaMemcpy");
                check(cudart.cudaMemcpy(m, b, BYTES, cudart.cudaMemcpyDefault), "cudaMemcpy");
            }
            try (HostOpMarker.Scope x = session.op("kinds::managed_free")) {
                check(cudart.cudaFree(m), "cudaFree");
            }
            if (sum != floats / 1024 * 2.0f) { // the kernel ran on the migrated pages: each read 2.0
                org.flagos.trace.model.Diagnostics.warn("kinds", "managed memory read back " + sum + ", expected "
                        + floats / 1024 * 2.0f);
            }
        }
    }

    private static void memory(HostOpMarker session, Kernels k, CUstream_st s1) {
        try (HostOpMarker.Scope op = session.op("kinds::memory")) {
            long[] sizes = {1L << 10, 64L << 10, 1L << 20, 16L << 20, 96L << 20};
            List<Pointer> blocks = new ArrayList<>();
            try (HostOpMarker.Scope x = session.op("kinds::malloc", OpArgs.builder().add("sizes", sizes).build())) {
                for (long size : sizes) {
                    Pointer p = new Pointer((Pointer) null);
                    check(cudart.cudaMalloc(p, size), "cudaMalloc");
                    blocks.add(p);
                }
            }
            try (HostOpMarker.Scope x = session.op("kinds::free")) {
                for (Pointer p : blocks) {
                    check(cudart.cudaFree(p), "cudaFree");
                }
            }
            long[] asyncSizes = {4L << 10, 2L << 20, 32L << 20};
            try (HostOpMarker.Scope x = session.op("kinds::malloc_async", OpArgs.builder().add("sizes", asyncSizes).build())) {
                List<Pointer> async = new ArrayList<>();
                for (long size : asyncSizes) {
                    Pointer p = new Pointer((Pointer) null);
                    check(cudart.cudaMallocAsync(p, size, s1), "cudaMallocAsync");
                    async.add(p);
                }
                launch(k.fill(), BLOCKS, 256, s1, new FloatPointer(async.get(1)), 5.0f, (int) ((2L << 20) / Float.BYTES));
                for (Pointer p : async) {
                    check(cudart.cudaFreeAsync(p, s1), "cudaFreeAsync");
                }
                check(cudart.cudaStreamSynchronize(s1), "cudaStreamSynchronize");
            }
        }
    }

    /** The kernels of {@link NvrtcKernels#KINDS_SOURCE}. */
    private record Kernels(CUkern_st fill, CUkern_st axpy, CUkern_st scale, CUkern_st spin) {
    }
}
