#!/usr/bin/env python3
"""Top self and inclusive frames of a JFR recording's execution samples: jfr-top.py REC.jfr [N]."""
import collections, re, subprocess, sys
rec, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
text = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "96", rec],
                      capture_output=True, text=True, check=True).stdout
samples = [s for s in text.split("jdk.ExecutionSample") if "stackTrace" in s]
self_, incl, threads = collections.Counter(), collections.Counter(), collections.Counter()
for s in samples:
    t = re.search(r'sampledThread = "([^"]*)"', s)
    threads[re.sub(r'-?\d+$', '', t.group(1)) if t else "?"] += 1
    frames = re.findall(r'^\s+([\w$.<>]+)\(', s, re.M)
    if frames:
        self_[frames[0]] += 1
    for f in set(frames):
        incl[f] += 1
total = len(samples)
print(f"JFR execution samples (all threads): {total}; by thread: {dict(threads)}")
for f, c in self_.most_common(n):
    print(f"self {100 * c / total:5.1f}% {f}")
for f, c in incl.most_common(n + 15):
    if f.startswith("org.flagos"):
        print(f"incl {100 * c / total:5.1f}% {f}")
