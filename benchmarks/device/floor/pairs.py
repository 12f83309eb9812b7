#!/usr/bin/env python3
"""Summarizes benchmarks/run-device-floor.sh: flagtrace's launch cost against raw CUPTI's, in pairs.

Reads the pairs file (JSON lines from launch_floor and FloorPairProbe, matched on "pair") and,
optionally, the stop file (StopToTraceProbe lines tagged with "jvm" and "session"). Prints one row
per pair, then for each paired quantity its median with a distribution-free interval: the
order-statistic interval of the median (sign test) and the Hodges-Lehmann estimate with its
Wilcoxon signed-rank interval. Standard library only (the device has no numpy).

    pairs.py PAIRS.jsonl [STOP.jsonl] [--confidence 0.95]
    pairs.py --stop-only STOP.jsonl          (the stop-to-trace lines alone: run-device-floor.sh PAIRS=0)
"""
import json
import math
import sys

TARGET_INCREMENT_US = 0.2   # issue 16 item 10: flagtrace's increment within 0.2 us of CUPTI's
TARGET_STOP_S = 0.1         # stop to trace for 500,000 events


def read_lines(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                print(f"# {path}:{n}: not JSON, skipped: {line[:80]}")
    return rows


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def sign_interval(xs, confidence):
    """[x_(k), x_(n+1-k)] for the largest k whose coverage 1 - 2 P(Bin(n, 1/2) < k) >= confidence."""
    s = sorted(xs)
    n = len(s)
    best = None
    cdf = 0.0
    for k in range(1, n // 2 + 1):
        cdf += math.comb(n, k - 1) / 2 ** n       # P(B <= k-1)
        coverage = 1 - 2 * cdf
        if coverage < confidence:
            break
        best = (s[k - 1], s[n - k], coverage)
    return best  # None: too few pairs for that confidence


def signed_rank_counts(n):
    """counts[t] = number of sign patterns whose Wilcoxon statistic is t (exact, no ties assumed)."""
    counts = [1]
    for r in range(1, n + 1):
        nxt = [0] * (len(counts) + r)
        for t, c in enumerate(counts):
            nxt[t] += c
            nxt[t + r] += c
        counts = nxt
    return counts


def hodges_lehmann(xs, confidence):
    """The median of the Walsh averages, and the interval [W_(k), W_(M+1-k)] from the exact signed-rank law."""
    n = len(xs)
    walsh = sorted((xs[i] + xs[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    counts = signed_rank_counts(n)
    total = 2 ** n
    best = None
    cdf = 0
    for k in range(1, m // 2 + 1):
        cdf += counts[k - 1]                          # P(T <= k-1) * 2^n
        coverage = 1 - 2 * cdf / total
        if coverage < confidence:
            break
        best = (walsh[k - 1], walsh[m - k], coverage)
    return median(walsh), best


def describe(name, xs, confidence):
    med = median(xs)
    si = sign_interval(xs, confidence)
    hl, hi = hodges_lehmann(xs, confidence)
    sign = f"[{si[0]:+.3f}, {si[1]:+.3f}] ({si[2]:.1%})" if si else "(too few pairs)"
    hli = f"[{hi[0]:+.3f}, {hi[1]:+.3f}] ({hi[2]:.1%})" if hi else "(too few pairs)"
    print(f"{name:<34} n={len(xs):<3} median {med:+.3f} us, sign-test interval {sign}; "
          f"Hodges-Lehmann {hl:+.3f} us, interval {hli}; range {min(xs):+.3f}..{max(xs):+.3f}")
    return med, si, hl, hi


def pairs_summary(rows, confidence):
    by_pair = {}
    for r in rows:
        by_pair.setdefault(r.get("pair"), {})[r.get("side")] = r
    complete = [(p, s["c"], s["java"]) for p, s in sorted(by_pair.items(), key=lambda kv: kv[0])
                if "c" in s and "java" in s]
    lost = [p for p, s in by_pair.items() if not ("c" in s and "java" in s)]
    if lost:
        print(f"# pairs missing a side (not counted): {sorted(lost)}")
    if not complete:
        print("no complete pair")
        return 1
    print("# us per launch, medians of each process's timed batches; inc = armed/session - plain, res = after - plain")
    print(f"{'pair':>4} {'C plain':>8} {'C armed':>8} {'C after':>8} {'J plain':>8} {'J sess':>8} {'J after':>8}"
          f" {'C inc':>7} {'J inc':>7} {'J-C inc':>8} {'C res':>7} {'J res':>7}")
    cols = {k: [] for k in ("c_inc", "j_inc", "diff", "c_res", "j_res", "res_diff")}
    for p, c, j in complete:
        c_inc, j_inc = c["armed"] - c["plain"], j["session"] - j["plain"]
        c_res, j_res = c["after"] - c["plain"], j["after"] - j["plain"]
        for k, v in (("c_inc", c_inc), ("j_inc", j_inc), ("diff", j_inc - c_inc), ("c_res", c_res),
                     ("j_res", j_res), ("res_diff", j_res - c_res)):
            cols[k].append(v)
        print(f"{p:>4} {c['plain']:8.3f} {c['armed']:8.3f} {c['after']:8.3f} {j['plain']:8.3f} {j['session']:8.3f}"
              f" {j['after']:8.3f} {c_inc:+7.3f} {j_inc:+7.3f} {j_inc - c_inc:+8.3f} {c_res:+7.3f} {j_res:+7.3f}")
    print()
    describe("C increment (CUPTI armed - plain)", cols["c_inc"], confidence)
    describe("Java increment (session - plain)", cols["j_inc"], confidence)
    med, si, hl, hi = describe("difference (Java inc - C inc)", cols["diff"], confidence)
    describe("C residue (after - plain)", cols["c_res"], confidence)
    _, jsi, _, _ = describe("Java residue (after - plain)", cols["j_res"], confidence)
    _, rsi, _, _ = describe("residue difference (Java - C)", cols["res_diff"], confidence)
    print()
    if si is None:
        verdict = "not decidable: too few pairs for the interval"
    elif si[1] <= TARGET_INCREMENT_US:
        verdict = f"MET: the interval's upper end {si[1]:+.3f} us is within +{TARGET_INCREMENT_US} us"
    elif med <= TARGET_INCREMENT_US:
        verdict = (f"NOT DEMONSTRATED: median {med:+.3f} us is within +{TARGET_INCREMENT_US}, the interval reaches "
                   f"{si[1]:+.3f}")
    else:
        verdict = f"MISSED by {med - TARGET_INCREMENT_US:.3f} us (median {med:+.3f})"
    print(f"target, increment within {TARGET_INCREMENT_US} us of raw CUPTI's: {verdict}")
    if jsi is not None:
        back = jsi[0] <= 0 <= jsi[1]
        print(f"target, launch cost back to plain after a session: Java residue interval [{jsi[0]:+.3f}, {jsi[1]:+.3f}] "
              + ("contains 0: within noise" if back else "excludes 0: a residue remains"))
    if rsi is not None:
        print(f"  beyond raw CUPTI's own residue: Java - C interval [{rsi[0]:+.3f}, {rsi[1]:+.3f}]"
              + (" contains 0: what remains is CUPTI's" if rsi[0] <= 0 <= rsi[1] else " excludes 0"))
    cycled_summary(complete, confidence)
    for p, c, j in complete:
        if c.get("dropped") or j.get("dropped_by_vendor"):
            print(f"# pair {p}: records dropped, C {c.get('dropped')}, Java {j.get('dropped_by_vendor')}")
    return 0


def cycled_increment(row):
    """The median over a process's cycles of (armed or session) - after, each cycle's two medians back to back."""
    on, off = row.get("cycle_on") or [], row.get("cycle_off") or []
    return median([a - b for a, b in zip(on, off)]) if on and len(on) == len(off) else None


def cycled_summary(complete, confidence):
    """The same comparison from the cycles: each increment over CUPTI attached with nothing armed, back to back."""
    rows = [(p, cycled_increment(c), cycled_increment(j), len(c.get("cycle_on") or [])) for p, c, j in complete]
    rows = [r for r in rows if r[1] is not None and r[2] is not None]
    if not rows:
        return
    print()
    print("# cycles: each process's median over its cycles of (armed/session - after), measured back to back;")
    print("# the baseline is CUPTI attached with nothing armed on both sides (the residue above is in neither)")
    print(f"{'pair':>4} {'cycles':>6} {'C inc':>7} {'J inc':>7} {'J-C inc':>8}")
    diffs, cs, js = [], [], []
    for p, c_inc, j_inc, n in rows:
        print(f"{p:>4} {n:>6} {c_inc:+7.3f} {j_inc:+7.3f} {j_inc - c_inc:+8.3f}")
        cs.append(c_inc)
        js.append(j_inc)
        diffs.append(j_inc - c_inc)
    describe("C cycled increment", cs, confidence)
    describe("Java cycled increment", js, confidence)
    med, si, _, _ = describe("cycled difference (Java - C)", diffs, confidence)
    if si is None:
        verdict = "not decidable: too few pairs for the interval"
    elif si[1] <= TARGET_INCREMENT_US:
        verdict = f"MET: the interval's upper end {si[1]:+.3f} us is within +{TARGET_INCREMENT_US} us"
    elif med <= TARGET_INCREMENT_US:
        verdict = f"NOT DEMONSTRATED: median {med:+.3f} us, the interval reaches {si[1]:+.3f}"
    else:
        verdict = f"MISSED by {med - TARGET_INCREMENT_US:.3f} us (median {med:+.3f})"
    print(f"target from the cycles, increment within {TARGET_INCREMENT_US} us of raw CUPTI's: {verdict}")


def stop_summary(rows):
    first = [r for r in rows if r.get("session") == 0]
    if not first:
        print("no stop-to-trace line")
        return 1
    print("# stop to trace, the first session of each fresh JVM")
    print(f"{'jvm':>4} {'events':>8} {'MB':>6} {'run s':>7} {'stop s':>7} {'ring waits':>10} {'kept aside':>10} {'dropped':>7}")
    for r in first:
        print(f"{r['jvm']:>4} {r['events']:>8} {r['bytes'] / 1e6:6.1f} {r['run_s']:7.3f} {r['stop_to_trace_s']:7.3f}"
              f" {r['ring_full_waits']:>10} {r['ops_kept_aside']:>10} {r['cupti_dropped']:>7}")
    times = [r["stop_to_trace_s"] for r in first]
    under = sum(t < TARGET_STOP_S for t in times)
    print(f"first sessions: median {median(times):.3f} s, max {max(times):.3f} s; {under} of {len(times)} under {TARGET_STOP_S} s")
    later = [r["stop_to_trace_s"] for r in rows if r.get("session", 0) > 0]
    if later:
        print(f"later sessions of the same JVMs: median {median(later):.3f} s, max {max(later):.3f} s ({len(later)})")
    return 0


def main(argv):
    confidence = 0.95
    args = []
    stop_only = False
    i = 0
    while i < len(argv):
        if argv[i] == "--stop-only":
            stop_only = True
            i += 1
        elif argv[i] == "--confidence":
            confidence = float(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    if stop_only:
        return stop_summary(read_lines(args[0]))
    rc = pairs_summary(read_lines(args[0]), confidence)
    if len(args) > 1:
        print()
        rc |= stop_summary(read_lines(args[1]))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
