#!/usr/bin/python3
# Makes the torch-legacy fixtures: traces written by torch's legacy exporter (torch built without
# kineto: no "cat", pid "CPU functions"), and torch's own key_averages() of the same profiles.
# Run with Debian's torch 1.13 CPU build (apt-get install python3-torch), from this folder:
#   /usr/bin/python3 make_traces.py
# Each case NAME gives NAME.json (export_chrome_trace) and NAME.key_averages.json (per key: count,
# cpu_time_total and self_cpu_time_total, in torch's microseconds). FlagtraceLegacyTorchTest holds
# `flagtrace summary` of NAME.json to NAME.key_averages.json.
import json
import time

import torch
from torch.autograd.profiler import record_function


def chain(n):
    # outer > deep > deep > outer > ...: an op nested in an op of its own name (8 deep for n = 4)
    with record_function("outer"):
        with record_function("deep"):
            with record_function("deep"):
                if n > 1:
                    chain(n - 1)


def busy(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass


def shapes():
    # nested ranges with work between them, back-to-back (touching) siblings, empty (zero-length)
    # ranges, a range around a single range of another name, and real aten ops inside ranges
    with record_function("step"):
        for i in range(3):
            with record_function("touch_a"):
                busy(30)
            with record_function("touch_b"):
                busy(20)
        with record_function("empty"):
            pass
        with record_function("empty"):
            pass
        with record_function("wrap"):
            with record_function("inner"):
                busy(50)
        with record_function("math"):
            x = torch.ones(64)
            y = (x * 2).sum()
            busy(10)
        busy(40)


def profile(name, fn):
    with torch.autograd.profiler.profile() as prof:
        fn()
    prof.export_chrome_trace(name + ".json")
    rows = [{"key": e.key, "count": e.count, "cpu_time_total": e.cpu_time_total,
             "self_cpu_time_total": e.self_cpu_time_total} for e in prof.key_averages()]
    with open(name + ".key_averages.json", "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    profile("chain", lambda: chain(4))
    profile("shapes", shapes)
