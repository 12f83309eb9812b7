# torch.profiler's step schedule on the H200: the reference flagtrace's ScheduledSession follows.
# skip_first=1, wait=1, warmup=1, active=2, repeat=2 over 12 steps, each step one
# record_function("work") around one kernel, written by tensorboard_trace_handler. Prints per file
# its name, its ProfilerStep ops (category, ts, dur), its kernels and "work" events; then the host
# name and pid of the default worker name. Usage: python3 torch_step_schedule.py OUT_DIR
# (run as is on 2026-12-01: benchmarks/results/2026-12-01-vm/step-schedule.txt)
import glob,json,os,socket,sys,torch
from torch.profiler import ProfilerActivity as A,profile,record_function,schedule,tensorboard_trace_handler
out=sys.argv[1];x=torch.ones(1<<20,device="cuda");torch.cuda.synchronize()
with profile(activities=[A.CPU,A.CUDA],schedule=schedule(skip_first=1,wait=1,warmup=1,active=2,repeat=2),on_trace_ready=tensorboard_trace_handler(out)) as p:
    for i in range(12):
        with record_function("work"):
            x.add_(1)
        torch.cuda.synchronize();p.step()
print("torch",torch.__version__)
for f in sorted(glob.glob(os.path.join(out,"*"))):
    ev=json.load(open(f))["traceEvents"]
    st=[(e["name"],e.get("cat"),e["ts"],e.get("dur")) for e in ev if e.get("name","").startswith("ProfilerStep") and e.get("ph")=="X"]
    ks=[e for e in ev if e.get("cat")=="kernel"]
    print(os.path.basename(f))
    for s in st: print("  step",s)
    print("  kernels",len(ks),"work",sorted({(e.get("cat"),e.get("ph")) for e in ev if e.get("name")=="work"}),sum(1 for e in ev if e.get("name")=="work" and e.get("ph")=="X"))
print("hostname",socket.gethostname(),"pid",os.getpid())
