"""torch.profiler's step schedule on the H200, the reference flagtrace's ScheduledSession follows:
one run of skip_first=1, wait=1, warmup=1, active=2, repeat=2 over 12 steps, each step one
record_function("work") around one kernel, traces written by tensorboard_trace_handler. Prints, per
file: its name, the ProfilerStep ops (category, ts, dur), the kernels and "work" ops it holds, and
whether each kernel lies inside a ProfilerStep; then the host name and pid the default worker name
is made of. Usage: python3 torch_step_schedule.py OUT_DIR"""
import glob
import json
import os
import socket
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

out = sys.argv[1]
x = torch.ones(1 << 20, device="cuda")
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
             schedule=schedule(skip_first=1, wait=1, warmup=1, active=2, repeat=2),
             on_trace_ready=tensorboard_trace_handler(out)) as p:
    for i in range(12):
        with record_function("work"):
            x.add_(1)
        torch.cuda.synchronize()
        p.step()
print("torch", torch.__version__)
for f in sorted(glob.glob(os.path.join(out, "*"))):
    events = json.load(open(f))["traceEvents"]
    steps = [(e["name"], e.get("cat"), e["ts"], e.get("dur")) for e in events
             if e.get("name", "").startswith("ProfilerStep") and e.get("ph") == "X"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    works = sorted({e.get("cat") for e in events if e.get("name") == "work"})
    inside = [any(s[1] in ("user_annotation", "cpu_op") and s[2] <= k["ts"] <= s[2] + s[3] for s in steps) for k in kernels]
    print(os.path.basename(f))
    for s in steps:
        print("  step", s)
    print("  kernels", len(kernels), "work ops", sum(1 for e in events if e.get("name") == "work" and e.get("ph") == "X"),
          "work categories", works, "kernels launched inside a host step (by launch ts)", inside)
print("hostname", socket.gethostname(), "pid", os.getpid())
