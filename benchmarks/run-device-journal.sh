#!/usr/bin/env bash
# ON the NVIDIA machine, from the repository root: records the parity workload live with a journal
# (Chronicle Queue) and a buffer dump side by side, then exports the journal and replays the dump,
# and compares the three traces' device and API events (python3, there). Needs .device/jre and
# .device/lib (docs/running-on-h200.md). Writes $OUT/journal-results.tgz; exits nonzero on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
java="$PWD/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device-journal.sh: $java missing" >&2; exit 2; }
export LD_LIBRARY_PATH="/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY
chronicle=(--add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
           --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED)
opts=("${chronicle[@]}" -Dorg.bytedeco.javacpp.cachedir="$PWD/.device/javacpp-cache" -XX:ErrorFile="$OUT/hs_err_%p.log"
      -cp "$PWD/.device/lib/*")
d="$OUT/journal"; mkdir -p "$d"
cli() { "$java" "${opts[@]}" org.flagos.trace.cli.FlagtraceCli "$@"; }
status=0
cli record --workload parity -o "$d/live.json" --summary "$d/live-summary.json" \
    --dump-buffers "$d/parity.fltrbuf" --journal "$d/queue" > "$d/record.txt" 2>&1 || status=1
echo "record exit $status" >> "$d/record.txt"
if [[ $status -eq 0 ]]; then
  cli replay "$d/queue" -o "$d/from-journal.json" --summary "$d/from-journal-summary.json" > "$d/export.txt" 2>&1 || status=1
  cli replay "$d/parity.fltrbuf" --ops "$d/parity.ops.jsonl" -o "$d/from-dump.json" > "$d/replay.txt" 2>&1 || status=1
  python3 - "$d" > "$d/compare.txt" 2>&1 <<'PY' || status=1
import json, sys, collections
d = sys.argv[1]
def load(name):
    t = json.load(open(f"{d}/{name}"))
    ev = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") not in ("Trace",)]
    key = lambda e: (e["cat"], e["name"], e["ts"], e["dur"], e["pid"], e["tid"])
    return sorted(map(key, ev)), collections.Counter(e["cat"] for e in ev)
live, lc = load("live.json"); journal, jc = load("from-journal.json"); dump, dc = load("from-dump.json")
print("live", dict(lc)); print("journal", dict(jc)); print("dump", dict(dc))
print("journal == live:", journal == live); print("dump == live:", dump == live)
sys.exit(0 if journal == live and dump == live else 1)
PY
fi
cat "$d"/*.txt
du -sh "$d/queue" >> "$d/compare.txt" 2>&1
rm -f "$d/parity.fltrbuf"   # large; the comparison is what comes back
(cd "$OUT" && tar czf journal-results.tgz journal && rm -rf journal)
exit $status
