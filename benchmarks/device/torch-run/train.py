"""An unchanged PyTorch program for benchmarks/run-device-torch-run.sh (issue 31, item 8): it knows
nothing of flagtrace. A small MLP trained with SGD, plus the seed's workload ops (sort, a host copy, a
zero fill), for STEPS measured steps after 3 warm-up steps.

    train.py torch  STEPS   the measured steps under torch.profiler (CPU+CUDA), trace to $TRACE_DIR
    train.py nvtx   STEPS   the measured steps under torch.autograd.profiler.emit_nvtx()
    train.py plain  STEPS   the measured steps alone
    train.py launch N       launch cost of x.add_(1), as torch_overhead.py measures it: 5 loops of N
                            (EMIT_NVTX=1: inside emit_nvtx; TORCH_PROFILE=1: under torch.profiler
                            CPU+CUDA), one JSON line

The measured steps run inside one NVTX range "measured" (in every mode, so the programs stay the
same), ending with a synchronize, so a trace's device work of the measured steps is the work between
that range's start and end."""
import json
import os
import sys
import time

import torch

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
dev = torch.device("cuda")


def launch_cost():
    x = torch.zeros(1, device=dev)

    def loop(count):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(count):
            x.add_(1)
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / count * 1e6

    loop(2000)
    nvtx = os.environ.get("EMIT_NVTX") == "1"
    profiled = os.environ.get("TORCH_PROFILE") == "1"
    if nvtx:
        with torch.autograd.profiler.emit_nvtx():
            us = [loop(n) for _ in range(5)]
    elif profiled:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
            us = [loop(n) for _ in range(5)]
    else:
        us = [loop(n) for _ in range(5)]
    print(json.dumps({"mode": "launch", "emit_nvtx": nvtx, "torch_profiler": profiled, "n": n, "us_per_op": us}))


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 512)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = torch.randn(64, 512, device=dev)
target = torch.randn(64, 512, device=dev)
host = torch.randn(1 << 18)


def step():
    opt.zero_grad(set_to_none=False)
    loss = torch.nn.functional.mse_loss(model(data), target)
    loss.backward()
    opt.step()
    s, _ = torch.sort(loss.detach().reshape(1).repeat(4096))
    d = host.to(dev)
    z = torch.zeros(1 << 18, device=dev)
    return s, d, z


def measured():
    torch.cuda.nvtx.range_push("measured")
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    torch.cuda.nvtx.range_pop()
    return (t1 - t0) / n * 1e3


if mode == "launch":
    launch_cost()
    sys.exit(0)
for _ in range(3):
    step()
torch.cuda.synchronize()
if mode == "torch":
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        ms = measured()
    out = os.environ.get("TRACE_DIR", ".")
    prof.export_chrome_trace(os.path.join(out, "torch_trace.json"))
    with open(os.path.join(out, "key_averages.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="self_device_time_total", row_limit=60))
elif mode == "nvtx":
    with torch.autograd.profiler.emit_nvtx():
        ms = measured()
else:
    ms = measured()
print(json.dumps({"mode": mode, "steps": n, "ms_per_step": ms, "torch": torch.__version__}))
