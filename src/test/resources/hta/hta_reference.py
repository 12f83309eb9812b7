# Writes simple_add.hta.json: what Holistic Trace Analysis (HTA) computes on simple_add_trace.json.gz,
# the reference HtaTraceAnalysesTest holds flagtrace's analyses to. Run with HTA importable
# (its git checkout on PYTHONPATH, or pip's HolisticTraceAnalysis) and pandas:
#   python3 hta_reference.py TRACE_DIR OUT.json     (TRACE_DIR holds only simple_add_trace.json.gz)
# Made with HTA at commit f4d0062 (github.com/facebookresearch/HolisticTraceAnalysis), pandas 2.x.
import json
import sys

from hta.trace_analysis import TraceAnalysis

analysis = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
_, kernels = analysis.get_gpu_kernel_breakdown(
    visualize=False, num_kernels=1_000_000, duration_ratio=1.0, include_memory_kernels=True
)
launches = analysis.get_cuda_kernel_launch_stats(visualize=False)[0]
queue = analysis.get_queue_length_time_series()[0]
idle, _ = analysis.get_idle_time_breakdown(visualize=False)
out = {
    "units": "the trace's (us)",
    "kernels": [
        {"name": r["name"], "kind": r["kernel_type"], "sum": r["sum (us)"], "max": r["max (us)"],
         "min": r["min (us)"], "mean": r["mean (us)"], "std": r["stddev"]}
        for _, r in kernels.iterrows()
    ],
    "launches": [
        {"correlation": int(r["correlation"]), "cpu_duration": r["cpu_duration"],
         "gpu_duration": r["gpu_duration"], "launch_delay": r["launch_delay"]}
        for _, r in launches.iterrows()
    ],
    "queue_length": [
        {"ts": int(r["ts"]), "stream": int(r["stream"]), "queue_length": int(r["queue_length"])}
        for _, r in queue.iterrows()
    ],
    "idle": [
        {"stream": int(r["stream"]), "category": r["idle_category"], "idle_time": r["idle_time"]}
        for _, r in idle.iterrows()
    ],
}
with open(sys.argv[2], "w") as f:
    json.dump(out, f, indent=1, default=float)
