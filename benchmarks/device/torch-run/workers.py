"""An unchanged multi-process PyTorch program for benchmarks/run-device-session.sh and
benchmarks/run-device-two-gpus.sh (issue 31 item 2, issue 32 item 2), started by torchrun: each worker
(RANK, LOCAL_RANK, WORLD_SIZE from torchrun's environment) joins a process group and runs STEPS steps of a
matmul, a scale and collectives of a CUDA tensor, and prints one JSON line with what it launched, so the
trace can be counted against the program itself.

BACKEND=gloo (the default): an all_reduce a step (gloo copies the tensor to the host and back); every
worker on GPU 0, so it works on one GPU.
BACKEND=nccl: each worker on GPU LOCAL_RANK, and a step does an all_reduce, an all_gather_into_tensor, a
reduce_scatter_tensor and a broadcast (NCCL's kernels, one stream of NCCL's own); needs one GPU a worker.

The steps run inside emit_nvtx (ranges as ops under `flagtrace run`), unless TORCH_PROFILE=DIR: then
under torch.profiler (CPU+CUDA, record_shapes), each worker writing DIR/rankN.pt.trace.json (kineto's
trace with distributedInfo and the collectives' args).

    torchrun --standalone --nproc-per-node=2 workers.py STEPS"""
import contextlib
import json
import os
import sys

import torch
import torch.distributed as dist

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
backend = os.environ.get("BACKEND", "gloo")
profile_dir = os.environ.get("TORCH_PROFILE")
dist.init_process_group(backend)
dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)) if backend == "nccl" else 0)
torch.cuda.set_device(dev)
torch.manual_seed(rank)
a = torch.randn(256, 256, device=dev)
b = torch.randn(256, 256, device=dev)
gathered = torch.empty(world * 256, 256, device=dev)
scattered = torch.empty(256 // world, 256, device=dev)
big = torch.ones(4 << 20, device=dev)  # 16 MiB: a collective long enough to see its bandwidth
torch.cuda.synchronize()
done = {"mm": 0, "all_reduce": 0, "all_gather": 0, "reduce_scatter": 0, "broadcast": 0}

if profile_dir:
    from torch.profiler import ProfilerActivity, profile
    scope = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True)
else:
    scope = torch.autograd.profiler.emit_nvtx()
with scope as prof:
    for _ in range(steps):
        c = torch.mm(a, b)
        c.mul_(1.0 / 256)
        done["mm"] += 1
        dist.all_reduce(c)
        done["all_reduce"] += 1
        if backend == "nccl":
            dist.all_gather_into_tensor(gathered, c)
            dist.reduce_scatter_tensor(scattered, gathered)
            dist.broadcast(big, src=0)
            dist.all_reduce(big)
            done["all_gather"] += 1
            done["reduce_scatter"] += 1
            done["broadcast"] += 1
            done["all_reduce"] += 1
        a = c
    torch.cuda.synchronize()
if profile_dir:
    os.makedirs(profile_dir, exist_ok=True)
    prof.export_chrome_trace(os.path.join(profile_dir, "rank%d.pt.trace.json" % rank))
dist.barrier()
print(json.dumps(dict({"rank": rank, "world": world, "pid": os.getpid(), "backend": backend, "device": str(dev),
                       "checksum": float(a.sum().item())}, **done)), flush=True)
dist.destroy_process_group()
