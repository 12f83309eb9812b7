"""An unchanged PyTorch program for benchmarks/run-device-disarmed-deferred.sh: does a window armed late, on real
CUPTI registered only at that arm, hold every kernel the program launched in it?

    window_probe.py N          prints "ready", reads a line (the caller armed the process), launches N x.add_(1) and
                               synchronizes, prints {"window_kernels": N}, reads a line (the caller disarmed it),
                               launches 1,000 more
    window_probe.py N nvtx     the same without reading: the N launches (and their synchronize) inside the NVTX range
                               "window", for `--capture-range nvtx:window`

1,000 launches before (CUDA's context, torch's caching, the kernel loaded) are outside every window too. x.add_(1) on
a one-element tensor is one kernel."""
import json
import sys

import torch

n = int(sys.argv[1])
nvtx = len(sys.argv) > 2 and sys.argv[2] == "nvtx"
x = torch.zeros(1, device="cuda")


def launches(count):
    for _ in range(count):
        x.add_(1)
    torch.cuda.synchronize()


launches(1000)
print("ready", flush=True)
if not nvtx:
    sys.stdin.readline()
if nvtx:
    torch.cuda.nvtx.range_push("window")
launches(n)
if nvtx:
    torch.cuda.nvtx.range_pop()
print(json.dumps({"window_kernels": n}), flush=True)
if not nvtx:
    sys.stdin.readline()
launches(1000)
