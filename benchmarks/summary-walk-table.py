#!/usr/bin/env python3
"""The table of summary-walk.sh's runs: summary-walk-table.py RESULTS. For each NAME-N.time of /usr/bin/time -v: CPU
(user + sys), wall, max RSS, and the load average (first field of /proc/loadavg) before and after from NAME-N.load;
then each kind's median CPU."""
import glob
import os
import re
import statistics
import sys

res = sys.argv[1]
rows, cpu = [], {}
for t in sorted(glob.glob(os.path.join(res, "*-[0-9].time"))):
    name = os.path.basename(t)[:-5]
    text = open(t).read()
    if "Exit status" not in text:
        continue  # a run still going, or killed
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))
    sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    status = re.search(r"Exit status: (\d+)", text).group(1)
    load = os.path.join(res, name + ".load")
    loads = [l.split()[0] for l in open(load)] if os.path.exists(load) else ["?", "?"]
    rows.append(f"| {name} | {user:.2f} + {sys_:.2f} = {user + sys_:.2f} s | {wall} | {rss // 1000} MB | "
                f"{' -> '.join(loads)} | {status} |")
    cpu.setdefault(name.rsplit("-", 1)[0], []).append(user + sys_)
print("| run | CPU (user + sys) | wall | max RSS | load before -> after | exit |")
print("| --- | --- | --- | --- | --- | --- |")
print("\n".join(rows))
print()
for kind, v in sorted(cpu.items()):
    print(f"- {kind}: median {statistics.median(v):.2f} s CPU ({', '.join(f'{x:.2f}' for x in v)})")
