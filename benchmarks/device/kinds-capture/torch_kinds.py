"""What torch.profiler records for the work kinds_capture.cu does under CUPTI.

Same work as the C++ capture, in torch: host ops (record_function), copies, kernels, a small
zero fill, stream/event/device synchronisation, a CUDA graph replayed 3 times, NVTX ranges (one
outside any op), allocations of several sizes released to the driver. Profiled twice:

1. with a schedule (wait=1, warmup=1, active=2, repeat=1) and tensorboard_trace_handler into
   OUT/tb/, a key_averages table per ready trace;
2. once without a schedule, exported with export_chrome_trace to OUT/plain.pt.trace.json, the
   graph captured inside the profiled region this time.

Usage: python3 torch_kinds.py OUT   (OUT is created). Writes a summary.json of what each trace holds.
"""
import collections
import json
import os
import sys
import time
import traceback

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

OUT = sys.argv[1] if len(sys.argv) > 1 else "torch-kinds"
os.makedirs(OUT, exist_ok=True)
DEV = torch.device("cuda")
N = 1 << 20  # floats: 4 MiB
SIZES = [1 << 10, 64 << 10, 1 << 20, 16 << 20, 96 << 20]  # bytes, as the C++ workload
summary = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
           "allocator_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"), "errors": []}


def spin(stream, ms=0.2):
    """Keep `stream` busy for about `ms` milliseconds, so that a wait on it is a real wait."""
    with torch.cuda.stream(stream):
        torch.cuda._sleep(int(ms * 2e6))  # cycles at about 2 GHz


def capture_graph(static):
    """A CUDA graph of 3 kernels, a device-to-device copy and a zero fill (warmed up first)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            graph_body(static)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        graph_body(static)
    return g


def graph_body(static):
    a, b, c, small = static
    a.fill_(1.0)
    b.add_(a, alpha=2.0)
    c.copy_(b)
    small.zero_()
    c.mul_(0.25)


def work(static, graph, s1, s2, ev1, ev2, capture_inside=False):
    a, b, c, small = static
    host = torch.ones(N)
    pinned = torch.ones(N).pin_memory()
    with record_function("kinds::alloc"):
        x = torch.empty(N, device=DEV)
        y = torch.empty(N, device=DEV)
    with record_function("kinds::baseline"):
        with record_function("kinds::copy_h2d"):
            x.copy_(host)
            with torch.cuda.stream(s1):
                y.copy_(pinned, non_blocking=True)
        with record_function("kinds::fill"):
            z = torch.full((N,), 2.0, device=DEV)
        with record_function("kinds::axpy"):
            z.add_(x, alpha=0.5)
        with record_function("kinds::zeros"):
            small.zero_()
        with record_function("kinds::copy_d2h"):
            pinned.copy_(z, non_blocking=True)
            host[:1024].copy_(z[:1024])
    with record_function("kinds::sync"):
        with record_function("kinds::stream_sync"):
            spin(s1)
            s1.synchronize()
        with record_function("kinds::event_sync"):
            spin(s1)
            ev1.record(s1)
            ev1.synchronize()
        with record_function("kinds::stream_wait_event"):
            spin(s1)
            ev2.record(s1)
            s2.wait_event(ev2)
            with torch.cuda.stream(s2):
                z.mul_(0.5)
            s2.synchronize()
        with record_function("kinds::event_query"):
            spin(s1)
            ev1.record(s1)
            while not ev1.query():
                pass
        with record_function("kinds::device_sync"):
            spin(s2)
            torch.cuda.synchronize()
    with record_function("kinds::graph"):
        if capture_inside:
            with record_function("kinds::graph_capture"):
                graph = capture_graph(static)
        with record_function("kinds::graph_replay"):
            for _ in range(3):
                with record_function("kinds::graph_launch"):
                    graph.replay()
            torch.cuda.synchronize()
    with record_function("kinds::nvtx"):
        torch.cuda.nvtx.range_push("nvtx::outer")
        x.fill_(3.0)
        torch.cuda.nvtx.range_push("nvtx::inner")
        x.mul_(2.0)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
        r = torch.cuda.nvtx.range_start("nvtx::start_end")
        small.fill_(1.0)
        torch.cuda.nvtx.range_end(r)
        torch.cuda.nvtx.mark("nvtx::mark")
        with torch.cuda.nvtx.range("nvtx::context_manager"):
            y.add_(x)
        torch.cuda.synchronize()
    # A range with no enclosing op.
    torch.cuda.nvtx.range_push("nvtx::no_op")
    x.fill_(4.0)
    torch.cuda.nvtx.range_pop()
    with record_function("kinds::memory"):
        with record_function("kinds::malloc"):
            blocks = [torch.empty(s // 4, device=DEV) for s in SIZES]
        with record_function("kinds::free"):
            del blocks
            torch.cuda.empty_cache()  # hands the blocks back to the driver: cudaFree
        with record_function("kinds::malloc_stream"):
            with torch.cuda.stream(s1):
                blocks = [torch.empty(s // 4, device=DEV) for s in (4 << 10, 2 << 20, 32 << 20)]
                blocks[1].fill_(5.0)
            s1.synchronize()
            del blocks
            torch.cuda.empty_cache()
    with record_function("kinds::peer_copy"):
        if torch.cuda.device_count() > 1:
            x.to("cuda:1")
        else:
            y.copy_(x)
        torch.cuda.synchronize()
    return graph


def write_key_averages(prof, stem):
    with open(os.path.join(OUT, stem + ".key_averages.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="self_device_time_total", row_limit=80))
        f.write("\n\n# grouped by input shape\n")
        f.write(prof.key_averages(group_by_input_shape=True).table(sort_by="self_device_time_total", row_limit=80))
        f.write("\n\n# grouped by stack (5 frames)\n")
        f.write(prof.key_averages(group_by_stack_n=5).table(sort_by="self_device_time_total", row_limit=40))
    fields = ("count", "cpu_time_total", "self_cpu_time_total", "device_time_total", "self_device_time_total",
              "cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage")
    rows = [dict({"key": e.key}, **{f: getattr(e, f, None) for f in fields}) for e in prof.key_averages()]
    with open(os.path.join(OUT, stem + ".key_averages.json"), "w") as f:
        json.dump(rows, f, indent=1)


def describe(path):
    """Categories, names per category, arg keys, flows: what a decoder must reproduce."""
    t = json.load(open(path))
    events = t.get("traceEvents", [])
    cats = collections.Counter(e.get("cat") for e in events)
    names = collections.defaultdict(collections.Counter)
    args = collections.defaultdict(set)
    for e in events:
        names[str(e.get("cat"))][e.get("name")] += 1
        for k in (e.get("args") or {}):
            args[str(e.get("cat"))].add(k)
    flows = collections.defaultdict(collections.Counter)
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows[str(e.get("cat"))][e["ph"]] += 1
    return {"file": os.path.relpath(path, OUT), "top_level_keys": sorted(t.keys()), "categories": dict(cats),
            "names": {c: dict(n.most_common(60)) for c, n in names.items() if c not in ("python_function",)},
            "python_function_events": cats.get("python_function", 0),
            "args_keys": {c: sorted(v) for c, v in args.items()},
            "flows": {c: dict(v) for c, v in flows.items()}}


def main():
    torch.cuda.init()
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    ev1, ev2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event()
    static = (torch.zeros(N, device=DEV), torch.zeros(N, device=DEV), torch.zeros(N, device=DEV),
              torch.zeros(64, device=DEV))
    graph = capture_graph(static)
    work(static, graph, s1, s2, ev1, ev2)  # warm up: kernels loaded, allocator primed
    torch.cuda.synchronize()
    config = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    common = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                  profile_memory=True, with_stack=True, experimental_config=config)

    tb = os.path.join(OUT, "tb")
    handler = tensorboard_trace_handler(tb, worker_name="kinds")
    ready = []

    def on_ready(p):
        handler(p)
        ready.append(p.step_num)
        write_key_averages(p, "scheduled.step%d" % p.step_num)

    try:
        t0 = time.time()
        with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1), on_trace_ready=on_ready,
                     **common) as prof:
            for step in range(5):
                with record_function("kinds::step"):
                    work(static, graph, s1, s2, ev1, ev2)
                prof.step()
        summary["scheduled"] = {"seconds": time.time() - t0, "ready_at_steps": ready,
                                "traces": [describe(os.path.join(tb, f)) for f in sorted(os.listdir(tb))
                                           if f.endswith(".json")]}
    except Exception:
        summary["errors"].append("scheduled: " + traceback.format_exc())
        traceback.print_exc()
    write_summary()

    try:
        t0 = time.time()
        with profile(**common) as prof:
            work(static, graph, s1, s2, ev1, ev2, capture_inside=True)
        path = os.path.join(OUT, "plain.pt.trace.json")
        prof.export_chrome_trace(path)
        write_key_averages(prof, "plain")
        summary["plain"] = {"seconds": time.time() - t0, "trace": describe(path)}
    except Exception:
        summary["errors"].append("plain: " + traceback.format_exc())
        traceback.print_exc()
    write_summary()
    return 1 if summary["errors"] else 0


def write_summary():
    with open(os.path.join(OUT, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
