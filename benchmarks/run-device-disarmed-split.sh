#!/usr/bin/env bash
# Where a disarmed `run` costs torch time (issue 31 item 3), ON the NVIDIA machine: torch's x.add_(1) loop
# (benchmarks/device/torch-run/train.py launch 20000) per round, sides in rotating order, each a fresh process:
#   plain      python alone
#   preload    python with flagtrace's two libraries in LD_PRELOAD as run puts them, but no run socket: the
#              libraries stay inactive (their interposers only pass calls on), CUPTI is never loaded
#   disarmed   `flagtrace run --start-later`: CUDA loads the injected library, which loads CUPTI, registers
#              its buffer callbacks and arms nothing
# One JSON line per process into $OUT/disarmed-split.jsonl. Bundle in .device/ab (device-bundle.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
source benchmarks/device-bundle.sh
work=$(mktemp -d)
for so in libflagtrace_inject.so libflagtrace_mspti.so; do
  python3 -c "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('flagtrace-inject/' + sys.argv[2]))" \
    "$bundle/flagtrace-0.1.0-SNAPSHOT.jar" "$so" > "$work/$so"
done
sides=(plain preload disarmed)
for ((r = 1; r <= ${ROUNDS:-4}; r++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    side=${sides[$(((i + r - 1) % ${#sides[@]}))]}
    case $side in
      plain) line=$(python3 benchmarks/device/torch-run/train.py launch 20000 2> "$work/err");;
      preload) line=$(LD_PRELOAD="$work/libflagtrace_mspti.so:$work/libflagtrace_inject.so" python3 benchmarks/device/torch-run/train.py launch 20000 2> "$work/err");;
      disarmed) line=$(ft run --start-later -d "$work/d$r" -- python3 benchmarks/device/torch-run/train.py launch 20000 2> "$work/err");;
    esac
    echo "{\"round\":$r,\"side\":\"$side\",\"result\":${line:-null}}" >> "$OUT/disarmed-split.jsonl"
  done
done
cat "$OUT/disarmed-split.jsonl"; rm -rf "$work"
