#!/usr/bin/env python3
"""jfr-thread.py REC.jfr THREADPREFIX [N]: self and inclusive frames of one thread's samples."""
import collections, re, subprocess, sys
rec, th = sys.argv[1], sys.argv[2]; n = int(sys.argv[3]) if len(sys.argv) > 3 else 30
text = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "96", rec], capture_output=True, text=True, check=True).stdout
samples = [s for s in text.split("jdk.ExecutionSample") if "stackTrace" in s]
self_, incl = collections.Counter(), collections.Counter(); total = 0
for s in samples:
    t = re.search(r'sampledThread = "([^"]*)"', s)
    if not t or not t.group(1).startswith(th): continue
    total += 1
    frames = re.findall(r'^\s+([\w$.<>]+)\(.*line: (\d+)', s, re.M)
    if frames: self_[frames[0][0] + ":" + frames[0][1]] += 1
    for f in set(f for f, _ in frames): incl[f] += 1
print(f"{th}: {total} samples")
for f, c in self_.most_common(n): print(f"self {100*c/total:5.1f}% {f}")
for f, c in incl.most_common(n): print(f"incl {100*c/total:5.1f}% {f}")
