#!/usr/bin/env bash
# Is a disarmed `flagtrace run --start-later` costing torch time because CUPTI is registered (issue 31 item 3)?
# ON the NVIDIA machine: torch's x.add_(1) loop (benchmarks/device/torch-run/train.py launch 20000) per round,
# sides in rotating order, each a fresh process:
#   plain       python alone
#   loaded      libcupti loaded, nothing called (cupti_idle.py, no flagtrace in the process)
#   timestamp   cuptiGetTimestamp once: CUPTI initialised, no client
#   registered  cuptiActivityRegisterCallbacks, no kind enabled: what the injected library does while disarmed
#   disarmed    `flagtrace run --start-later`
# If registered costs what disarmed costs over plain, the cost is CUPTI's registration, not flagtrace's.
# One JSON line per process into $OUT/cupti-idle.jsonl. Bundle in .device/ab (device-bundle.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
source benchmarks/device-bundle.sh
work=$(mktemp -d)
train=benchmarks/device/torch-run/train.py
idle=benchmarks/device/torch-run/cupti_idle.py
sides=(plain loaded timestamp registered disarmed)
for ((r = 1; r <= ${ROUNDS:-6}; r++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    side=${sides[$(((i + r - 1) % ${#sides[@]}))]}
    case $side in
      plain) line=$(python3 $train launch 20000 2> "$work/err");;
      disarmed) line=$(ft run --start-later -d "$work/d$r" -- python3 $train launch 20000 2> "$work/err");;
      *) line=$(CUPTI_IDLE=$side python3 $idle $train launch 20000 2> "$work/err");;
    esac
    [ -n "$line" ] || tail -3 "$work/err" >&2
    echo "{\"round\":$r,\"side\":\"$side\",\"result\":${line:-null}}" >> "$OUT/cupti-idle.jsonl"
  done
done
python3 - "$OUT/cupti-idle.jsonl" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in rows:
    if r["result"]:
        by.setdefault(r["round"], {})[r["side"]] = statistics.median(r["result"]["us_per_op"])
for rnd, sides in sorted(by.items()):
    plain = sides.get("plain")
    print(rnd, " ".join("%s %.2f (%+.2f)" % (s, v, v - plain) if plain else "%s %.2f" % (s, v) for s, v in sides.items()))
EOF
rm -rf "$work"
