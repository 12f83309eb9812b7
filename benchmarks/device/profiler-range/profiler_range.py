"""`flagtrace run --capture-range cudaProfilerApi` on a PyTorch program (issue 31 item 3): STEPS steps of a
matmul and a relu, warm-up steps before, and the measured steps inside torch.cuda.profiler.profile() (torch's
cudaProfilerStart/Stop). With KINETO=1 the measured steps also run under torch.profiler (CPU+CUDA), whose
kineto is a CUPTI client of its own: the trace of each is then counted (TRACE_DIR for torch's). Prints one
JSON line with the launches of the measured steps.

    profiler_range.py STEPS"""
import json
import os
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
dev = torch.device("cuda")
a = torch.randn(512, 512, device=dev)
for _ in range(3):  # warm-up, outside the range: cuBLAS's handle and workspaces
    torch.relu(a @ a)
torch.cuda.synchronize()
kineto = os.environ.get("KINETO") == "1"
with torch.cuda.profiler.profile():
    if kineto:
        from torch.profiler import ProfilerActivity, profile
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        prof.__enter__()
    for _ in range(steps):
        b = torch.relu(a @ a)
    torch.cuda.synchronize()
    if kineto:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(os.path.join(os.environ.get("TRACE_DIR", "."), "kineto.pt.trace.json"))
print(json.dumps({"steps": steps, "matmuls": steps, "relus": steps, "kineto": kineto}), flush=True)
