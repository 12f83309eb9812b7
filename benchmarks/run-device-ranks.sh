#!/usr/bin/env bash
# Issue 17's two-process run, ON the NVIDIA machine, from the repository root: two ranks (RANK=0/1,
# WORLD_SIZE=2), each a JVM running `flagtrace record --workload exchange --dump-buffers`, started
# together and meeting in a fresh folder (CUDA IPC handles and per-step meetings); then
# `flagtrace merge` of their traces and `flagtrace summary --ranks --json` of the merge.
# Rank R uses GPU R mod (GPU count): with one GPU both share it (NCCL refuses two ranks on one GPU;
# the exchange is CUDA IPC, no NCCL). Every JVM runs under `timeout`; a rank that fails leaves a
# marker its peer sees within ~2 ms, and every wait for the peer ends after FLAGTRACE_EXCHANGE_TIMEOUT_S.
# Expects .device/jre and .device/lib/* (docs/running-on-h200.md); writes $OUT/$name.tgz.
# PATCH_CLASSES=DIR puts DIR ahead of .device/lib on the class path (classes newer than the jar there);
# SUMMARY=0 leaves out `summary --ranks` (for a jar older than it: run it here on the merge).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
java="$PWD/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device-ranks.sh: $java missing (jlinked Java 17 expected in .device/jre)" >&2; exit 2; }
compgen -G ".device/lib/*.jar" > /dev/null || { echo "run-device-ranks.sh: no jars in .device/lib" >&2; exit 2; }
export LD_LIBRARY_PATH="/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export FLAGOS_TRACE=1
classpath="$PWD/.device/lib/*"
[[ -n ${PATCH_CLASSES:-} ]] && classpath="$PATCH_CLASSES:$classpath"
opts=(-Dorg.bytedeco.javacpp.cachedir="$PWD/.device/javacpp-cache" -cp "$classpath")
name=${CAPTURE_NAME:-h200-ranks}
limit=${RANK_TIMEOUT_S:-120}
cli=("$java" "${opts[@]}" org.flagos.trace.cli.FlagtraceCli)
w="$OUT/$name"
mkdir -p "$w"
meet=$(mktemp -d)
export WORLD_SIZE=2 FLAGTRACE_EXCHANGE_DIR="$meet" FLAGTRACE_EXCHANGE_TIMEOUT_S=${FLAGTRACE_EXCHANGE_TIMEOUT_S:-60}
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; uname -n; nproc; } > "$w/machine.txt" 2>&1
timeout 60 "${cli[@]}" --version > "$w/version.txt" 2>&1
start=$(date +%s%N)
for r in 0 1; do
  RANK=$r LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 timeout "$limit" "$java" "${opts[@]}" -XX:ErrorFile="$OUT/hs_err_rank$r.log" \
      org.flagos.trace.cli.FlagtraceCli record --workload exchange \
      -o "$w/rank$r.live.json" --summary "$w/rank$r.live-summary.json" \
      --dump-buffers "$w/rank$r.fltrbuf" > "$w/rank$r.txt" 2>&1 &
  pids[$r]=$!
done
rc=()
for r in 0 1; do
  wait "${pids[$r]}"; rc[$r]=$?
  echo "rank $r exit ${rc[$r]}" >> "$w/rank$r.txt"
done
echo "both ranks: $(( ($(date +%s%N) - start) / 1000000 )) ms" > "$w/ranks.txt"
ls -la "$meet" >> "$w/ranks.txt"
merge=1; summary=1
if [[ ${rc[0]} -eq 0 && ${rc[1]} -eq 0 ]]; then
  timeout 120 "${cli[@]}" merge "$w/rank0.live.json" "$w/rank1.live.json" -o "$w/$name.merged.json.gz" >> "$w/ranks.txt" 2>&1
  merge=$?
  echo "merge exit $merge" >> "$w/ranks.txt"
  if [[ $merge -eq 0 && ${SUMMARY:-1} == 0 ]]; then
    summary=0
  elif [[ $merge -eq 0 ]]; then
    timeout 120 "${cli[@]}" summary --ranks "$w/$name.merged.json.gz" --json "$w/$name.ranks.json" >> "$w/ranks.txt" 2>&1
    summary=$?
    echo "summary exit $summary" >> "$w/ranks.txt"
  fi
fi
cat "$w/rank0.txt" "$w/rank1.txt" "$w/ranks.txt"
rm -rf "$meet"
tar czf "$OUT/$name.tgz" -C "$OUT" "$name" && rm -rf "$w"
if [[ ${rc[0]} -ne 0 || ${rc[1]} -ne 0 || $merge -ne 0 || $summary -ne 0 ]]; then
  echo "run-device-ranks.sh: rank 0 exit ${rc[0]}, rank 1 exit ${rc[1]}, merge exit $merge, summary exit $summary" >&2
  exit 1
fi
