#!/usr/bin/env bash
# Issue 16 item 10's stop to trace, ON the NVIDIA machine, builds side by side in one command:
# StopToTraceProbe (100,000 ops of one memset, two sessions per JVM: the first is the JVM's first)
# in fresh JVMs, the sides taken in turn round after round, so that a drift of the machine does not
# favour one. Sides (SIDES, default "head head-nowarm base" where .device/base exists):
#   head          .device/lib/* as prepared (docs/running-on-h200.md), Profiler.init()'s warm-up on
#   head-nowarm   the same with -Dflagtrace.warmup=false
#   head-notail   the same with -Dflagtrace.warmup.tailMs=0: the warm-up without its tail captures
#   head@OPT[@OPT...]  the same with these JVM options, e.g. head@-Dflagtrace.cupti.bufferMiB=1
#   head-replayhorizon  the same with -Dflagtrace.opSettleRecords=0: ops settle after the join's 2^18
#                 records, as before the live bound (the lever alone, on the same build)
#   base          .device/base/flagtrace.jar and flagtrace-benchmarks.jar (another commit's, e.g.
#                 1787820: git worktree add /tmp/b 1787820; mvn -q -DskipTests package there; copy
#                 target/flagtrace-*.jar and a jar of target/test-classes/org/flagos/trace/benchmarks)
#                 before .device/lib/*
# -> $OUT/stop.jsonl (one line per session, with round and side), $OUT/closing-SIDE.txt (one more
# JVM per side with FLAGOS_TRACE=1: the close's parts), $OUT/summary.txt. ROUNDS=6.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
: "${OUT:?set OUT to the folder the results go to}"
rounds="${ROUNDS:-6}"
java="$root/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device-stop-ab.sh: $java missing (docs/running-on-h200.md)" >&2; exit 2; }
default_sides="head head-nowarm"
[[ -f "$root/.device/base/flagtrace.jar" ]] && default_sides="$default_sides base"
sides="${SIDES:-$default_sides}"
cuda=/usr/local/cuda-13.0
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
unset FLAGOS_ACCELERATOR FLAGOS_TRACER_LIBRARY FLAGOS_TRACE
scratch="$(mktemp -d /tmp/flagtrace-stop-ab.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
{ echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"; echo "loadavg: $(cat /proc/loadavg)";
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"; echo "sides: $sides, rounds: $rounds"; } | tee "$OUT/machine.txt"

side_args() { # the JVM arguments of one side
  local cp="$root/.device/lib/*" extra=()
  case "$1" in
    head) ;;
    head@*) IFS=@ read -r -a extra <<< "${1#head@}" ;;
    head-nowarm) extra=(-Dflagtrace.warmup=false) ;;
    head-notail) extra=(-Dflagtrace.warmup.tailMs=0) ;;
    head-replayhorizon) extra=(-Dflagtrace.opSettleRecords=0) ;;
    base) cp="$root/.device/base/flagtrace.jar:$root/.device/base/flagtrace-benchmarks.jar:$root/.device/lib/*" ;;
    *) echo "run-device-stop-ab.sh: unknown side $1" >&2; exit 2 ;;
  esac
  args=(-Dorg.bytedeco.javacpp.cachedir="$root/.device/javacpp-cache" -XX:ErrorFile="$OUT/hs_err_%p.log" -Xmx8g
        ${extra[@]+"${extra[@]}"} -cp "$cp" org.flagos.trace.benchmarks.StopToTraceProbe 100000 2 "$scratch")
}

: > "$OUT/stop.jsonl"
for r in $(seq 1 "$rounds"); do
  for side in $sides; do
    side_args "$side"
    timeout 120 "$java" "${args[@]}" 2>> "$OUT/log.txt" \
      | awk -v r="$r" -v s="$side" '/^\{/ { sub(/^\{/, "{\"round\":" r ",\"side\":\"" s "\",\"session\":" (n++) ","); print; fflush() }' \
      | tee -a "$OUT/stop.jsonl" || echo "round $r $side: StopToTraceProbe failed" | tee -a "$OUT/log.txt"
  done
done
for side in $sides; do
  side_args "$side"
  FLAGOS_TRACE=1 timeout 120 "$java" "${args[@]}" > "$OUT/closing-$side.txt" 2>&1 || echo "diagnosed $side failed" | tee -a "$OUT/log.txt"
  grep -E 'closing:|warm-up|session stopped' "$OUT/closing-$side.txt" | sed "s/^/$side: /" || true
done

python3 - "$OUT/stop.jsonl" <<'EOF' | tee "$OUT/summary.txt"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for side in dict.fromkeys(r["side"] for r in rows):
    for session, what in ((0, "first"), (1, "second")):
        xs = sorted(r["stop_to_trace_s"] for r in rows if r["side"] == side and r["session"] == session)
        if xs:
            print(f"{side:<12} {what:<6} sessions: n={len(xs)} median {statistics.median(xs):.3f} s, "
                  f"range {xs[0]:.3f}-{xs[-1]:.3f} s, under 0.1 s: {sum(x < 0.1 for x in xs)}")
    mine = [r for r in rows if r["side"] == side]
    if mine and "records_after_op_settled" in mine[0]: # builds with the live bound
        print(f"{side:<12} op_settle_records {sorted(set(r['op_settle_records'] for r in mine))}, ops held at most "
              f"{max(r['ops_held_max'] for r in mine)}, records after their op settled {sum(r['records_after_op_settled'] for r in mine)}, "
              f"device records without op {sum(r['device_records_without_op'] for r in mine)}, "
              f"GPU annotations not nested {sum(r['gpu_annotations_not_nested'] for r in mine)}")
EOF
