"""An unchanged multi-process PyTorch program for benchmarks/run-device-session.sh (issue 31, item 2),
started by torchrun: each worker (RANK, LOCAL_RANK, WORLD_SIZE from torchrun's environment) joins a
gloo process group, runs STEPS steps of a matmul, a scale and an all_reduce of a CUDA tensor (gloo
copies it to the host and back), inside emit_nvtx, and prints one JSON line with what it launched:
the matmuls and the all_reduces it did, so the trace can be counted against the program itself.
All workers share GPU 0 (gloo, not NCCL, so that works on one GPU).

    torchrun --standalone --nproc-per-node=2 workers.py STEPS"""
import json
import os
import sys

import torch
import torch.distributed as dist

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo")
dev = torch.device("cuda", 0)
torch.manual_seed(rank)
a = torch.randn(256, 256, device=dev)
b = torch.randn(256, 256, device=dev)
torch.cuda.synchronize()
with torch.autograd.profiler.emit_nvtx():
    for _ in range(steps):
        c = torch.mm(a, b)
        c.mul_(1.0 / 256)
        dist.all_reduce(c)
        a = c
    torch.cuda.synchronize()
dist.barrier()
print(json.dumps({"rank": rank, "world": world, "pid": os.getpid(), "mm": steps, "all_reduce": steps,
                  "checksum": float(a.sum().item())}), flush=True)
dist.destroy_process_group()
