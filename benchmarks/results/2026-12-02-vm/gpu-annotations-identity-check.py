#!/usr/bin/env python3
"""Checks that two scripts/output-identity folders differ only by GPU annotation spans.

Usage: gpu-annotations-identity-check.py BEFORE_DIR AFTER_DIR

Every file of BEFORE must be in AFTER and equal to it once the spans are taken out of AFTER:
JSON traces lose their gpu_user_annotation events and the flagtrace.gpu_annotations block, and
flagtrace.events is lowered by the spans; a key_averages JSON's other_events, a replay's "wrote"
line and an HTML report's events cell are lowered by the spans, and the report's gpu_annotations.*
rows and the replay's "GPU annotation spans:" line (spans left out, counted) are taken out; a Perfetto text dump loses the spans' begin and end packets (and the descriptors of tracks of spans, with
track uuids renumbered in order of first use (spans on a track of their own, as a first version drew them)). Prints one line per file and exits 1 on any other difference.
"""
import json
import os
import re
import sys


def strip_trace(t):
    t["traceEvents"] = [e for e in t["traceEvents"] if e.get("cat") != "gpu_user_annotation"]
    g = t["flagtrace"].pop("gpu_annotations", None)
    if g:
        t["flagtrace"]["events"] -= g["events"]
    return t


def spans_of(after_dir, capture):
    t = json.load(open(os.path.join(after_dir, capture + ".json")))
    return t["flagtrace"].get("gpu_annotations", {}).get("events", 0)


def pftrace_lines(path):
    lines = open(path).read().splitlines()
    annotation_tracks = set()
    for line in lines:
        m = re.search(r"descriptor=1:(\d+),5:\d+,2:([0-9a-f]+)", line)
        if m and bytes.fromhex(m.group(2)).decode().endswith(" annotations"):
            annotation_tracks.add(m.group(1))
    # a span is a begin packet (cat=gpu_user_annotation) and the end packet written right after it
    spans = {i for i, line in enumerate(lines) if " cat=gpu_user_annotation " in line}
    lines = [line for i, line in enumerate(lines) if i not in spans and i - 1 not in spans]
    out, uuids = [], {}

    def uuid(u):
        return uuids.setdefault(u, str(len(uuids) + 1))

    for line in lines:
        m = re.search(r"descriptor=1:(\d+)", line)
        if m and m.group(1) in annotation_tracks:
            continue
        t = re.search(r" e11=(\d+)", line)
        if t and t.group(1) in annotation_tracks:
            continue
        line = re.sub(r"descriptor=1:(\d+)", lambda x: "descriptor=1:" + uuid(x.group(1)), line)
        line = re.sub(r"(descriptor=1:\d+,5:)(\d+)", lambda x: x.group(1) + uuid(x.group(2)), line)
        line = re.sub(r" e11=(\d+)", lambda x: " e11=" + uuid(x.group(1)), line)
        out.append(line)
    return out


def lower_numbers(text, pattern, by):
    return re.sub(pattern, lambda m: m.group(1) + str(int(m.group(2)) - by) + m.group(3), text)


def check(before, after, name, capture, spans):
    a, b = os.path.join(before, name), os.path.join(after, name)
    if open(a, "rb").read() == open(b, "rb").read():
        return "identical"
    if name.endswith(".keyavg.json"):
        x, y = json.load(open(a)), json.load(open(b))
        y["other_events"] -= spans
        return "equal less spans" if x == y else None
    if name.endswith(".json"):
        return "equal less spans" if json.load(open(a)) == strip_trace(json.load(open(b))) else None
    if name.endswith(".replay.txt"):
        y = re.sub(r"(?m)^GPU annotation spans: .*\n", "", open(b).read())  # the counts of spans left out
        y = lower_numbers(y, r"(\()(\d+)( trace events: )", spans)
        y = lower_numbers(y, r"(trace events: )(\d+)( records)", spans)
        return "equal less spans" if open(a).read() == y else None
    if name.endswith(".html"):
        y = open(b).read()
        y = re.sub(r"<tr><td class=\"n\">gpu_annotations\.[a-z_]+</td><td>\d+</td></tr>\n?", "", y)
        x = open(a).read()
        if x == y:
            return "equal less spans"
        # the events cell: the one cell that differs, lowered by the spans
        xs, ys = re.split(r"(<td>\d+</td>)", x), re.split(r"(<td>\d+</td>)", y)
        if len(xs) != len(ys):
            return None
        diffs = [(p, q) for p, q in zip(xs, ys) if p != q]
        ok = all(re.fullmatch(r"<td>(\d+)</td>", q) and int(q[4:-5]) - spans == int(p[4:-5]) for p, q in diffs)
        return "equal less spans (events cell)" if ok and len(diffs) == 1 else None
    if name.endswith(".pftrace.txt"):
        return "equal less spans" if pftrace_lines(a) == pftrace_lines(b) else None
    return None


def main(before, after):
    bad = 0
    names = sorted(os.listdir(before))
    for name in names:
        if not os.path.exists(os.path.join(after, name)):
            print("only before:", name)
            bad += 1
            continue
        capture = name.split(".")[0]
        spans = spans_of(after, capture)
        verdict = check(before, after, name, capture, spans)
        print(f"{name}: {verdict or 'DIFFERS'} ({spans} spans)")
        bad += verdict is None
    extra = set(os.listdir(after)) - set(names)
    for name in sorted(extra):
        print("only after:", name)
    print(f"{len(names)} files, {bad} differ beyond the spans")
    return 1 if bad or extra else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
