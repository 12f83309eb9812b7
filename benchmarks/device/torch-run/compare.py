#!/usr/bin/env python3
"""Side by side of one program's torch.profiler trace and its `flagtrace run` trace (issue 31, item 8):
benchmarks/run-device-torch-run.sh writes both, from two runs of benchmarks/device/torch-run/train.py.

    compare.py TORCH_TRACE FLAGTRACE_TRACE [--whole]   prints a Markdown report; exit 1 when the device work differs
                                                       (--whole: the flagtrace trace is a capture range's window)

The measured steps are the whole of torch's trace; in flagtrace's they are the device work that starts
inside the NVTX range "measured" (the program synchronizes before it pops it). Compared: the device
events (kernels, copies, sets) name by name (count, then median duration: two runs of a GPU program
never take the same time), their order on each stream, and the host ops: torch's cpu_op events against
flagtrace's ops from emit_nvtx's ranges, by name."""
import collections
import json
import statistics
import sys

DEVICE = ("kernel", "gpu_memcpy", "gpu_memset")


def load(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def device(events, lo=None, hi=None):
    out = [e for e in events if e.get("ph") == "X" and e.get("cat") in DEVICE]
    if lo is not None:
        out = [e for e in out if lo <= e["ts"] <= hi]
    return sorted(out, key=lambda e: e["ts"])


def main(torch_path, flagtrace_path):
    torch_events, ft_events = load(torch_path), load(flagtrace_path)
    window = [e for e in ft_events if e.get("ph") == "X" and e.get("cat") == "cpu_op" and e.get("name") == "measured"]
    if len(window) == 1:
        lo, hi = window[0]["ts"], window[0]["ts"] + window[0]["dur"]
    elif not window and len(sys.argv) > 3 and sys.argv[3] == "--whole":  # a capture range's window is the measured steps
        lo, hi = float("-inf"), float("inf")
    else:
        print(f"flagtrace trace: expected one op 'measured', found {len(window)} (--whole: the whole trace is the steps)")
        return 1
    td, fd = device(torch_events), device(ft_events, lo, hi)
    ok = True
    print(f"# torch.profiler vs flagtrace run: the same program, two runs\n")
    print(f"- device events in the measured steps: torch {len(td)}, flagtrace {len(fd)}")
    for cat in DEVICE:
        a = sum(1 for e in td if e["cat"] == cat)
        b = sum(1 for e in fd if e["cat"] == cat)
        print(f"  - {cat}: torch {a}, flagtrace {b}")
        ok &= a == b
    tn, fn = collections.defaultdict(list), collections.defaultdict(list)
    for e in td:
        tn[e["name"]].append(e["dur"])
    for e in fd:
        fn[e["name"]].append(e["dur"])
    differ = sorted(n for n in set(tn) | set(fn) if len(tn[n]) != len(fn[n]))
    print(f"- names with a different count: {len(differ)} of {len(set(tn) | set(fn))}")
    for n in differ:
        print(f"  - {n[:100]}: torch {len(tn[n])}, flagtrace {len(fn[n])}")
    ok &= not differ
    streams = lambda es: collections.Counter(e["args"].get("stream") for e in es)
    tseq = [e["name"] for e in td]
    fseq = [e["name"] for e in fd]
    same_order = tseq == fseq
    print(f"- device events in the same order (by start): {'yes' if same_order else 'no'}; streams torch {dict(streams(td))}, flagtrace {dict(streams(fd))}")
    ok &= same_order
    print("\n| device event | count | torch median µs | flagtrace median µs | ratio |\n|---|---:|---:|---:|---:|")
    for n in sorted(tn, key=lambda n: -sum(tn[n])):
        a, b = statistics.median(tn[n]), statistics.median(fn[n]) if fn[n] else float("nan")
        print(f"| {n[:70].replace('|', '/')} | {len(tn[n])} | {a:.3f} | {b:.3f} | {b / a if a else float('nan'):.2f} |")
    ta, fa = sum(e["dur"] for e in td), sum(e["dur"] for e in fd)
    print(f"\n- device time in all: torch {ta:.1f} µs, flagtrace {fa:.1f} µs ({fa / ta:.3f})")
    tops = collections.Counter(e["name"] for e in torch_events if e.get("ph") == "X" and e.get("cat") == "cpu_op")
    fops = collections.Counter(e["name"].split(",")[0] for e in ft_events
                               if e.get("ph") == "X" and e.get("cat") == "cpu_op" and lo <= e["ts"] <= hi and e["name"] != "measured")
    both = sorted(set(tops) & set(fops))
    print(f"\n- host ops: torch.profiler {sum(tops.values())} ({len(tops)} names), emit_nvtx ranges {sum(fops.values())} ({len(fops)} names)")
    print(f"  - same count: {sum(1 for n in both if tops[n] == fops[n])} names; different: "
          + ", ".join(f"{n} {tops[n]}/{fops[n]}" for n in both if tops[n] != fops[n]))
    print(f"  - only torch.profiler: " + ", ".join(f"{n} {tops[n]}" for n in sorted(set(tops) - set(fops))))
    print(f"  - only emit_nvtx: " + ", ".join(f"{n} {fops[n]}" for n in sorted(set(fops) - set(tops))))
    print(f"\nverdict: device work {'identical by name, count and order' if ok else 'DIFFERS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
