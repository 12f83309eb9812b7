#!/usr/bin/env python3
"""threadcpu.py OUT cmd...: runs cmd (the launcher execs java), samples /proc/PID/task/*/stat every 50 ms; CPU per thread name."""
import os, re, subprocess, sys, time, collections
out = sys.argv[1]
p = subprocess.Popen(sys.argv[2:])
last = {}
while p.poll() is None:
    try:
        tids = os.listdir(f"/proc/{p.pid}/task")
    except FileNotFoundError:
        break
    for t in tids:
        try:
            s = open(f"/proc/{p.pid}/task/{t}/stat").read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        f = s[s.rindex(")") + 2:].split()
        last[t] = (name, int(f[11]), int(f[12]))
    time.sleep(0.05)
rc = p.wait()
by = collections.defaultdict(lambda: [0, 0, 0])
for name, u, s in last.values():
    k = re.sub(r"\d+$", "", name).strip() or name
    by[k][0] += u; by[k][1] += s; by[k][2] += 1
with open(out, "w") as o:
    tu = sum(v[0] for v in by.values()); ts = sum(v[1] for v in by.values())
    for k, (u, s, n) in sorted(by.items(), key=lambda kv: -(kv[1][0] + kv[1][1])):
        o.write(f"{k:24s} x{n:<3d} user {u/100:6.2f} sys {s/100:6.2f}\n")
    o.write(f"{'TOTAL (sampled)':24s}      user {tu/100:6.2f} sys {ts/100:6.2f}\n")
sys.exit(rc)
