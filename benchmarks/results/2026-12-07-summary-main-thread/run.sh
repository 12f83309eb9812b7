#!/usr/bin/env bash
# Interleaved cold runs of `summary --json` on big.json: BEFORE's launcher (main at 5815a037, a copied clone) and
# AFTER's (this branch), ROUNDS rounds each; per run /usr/bin/time (wall, user, sys, max RSS), per-thread CPU
# (/tmp/threadcpu.py) and the load beside it. Usage: run.sh BEFORE_DIR AFTER_DIR OUT_DIR [ROUNDS]
set -euo pipefail
before="$1"; after="$2"; out="$3"; rounds="${4:-3}"
trace=/work/swdata/big.json
mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    echo "$side $i load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
    ( cd "$dir" && nice -n 5 /usr/bin/time -f "%e wall %U user %S sys %M KB" -o "$out/$side-$i.time" \
        python3 /tmp/threadcpu.py "$out/$side-$i.threads" ./flagtrace summary --json "$out/$side-$i.json" "$trace" > /dev/null )
  done
done
