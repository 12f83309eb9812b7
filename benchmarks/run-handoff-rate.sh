#!/usr/bin/env bash
# Issue 31 item 6, "the hand-off keeps up with the vendor's buffers at 1M launches/s", on the fakes (no GPU needed;
# run it where the cores are free: the GPU machine's 16, not a loaded VM). A benchmark, not a test.
#
#     benchmarks/run-handoff-rate.sh [LAUNCHES_PER_THREAD] [THREAD COUNTS...]   # default 250000, threads 1 2 4 8
#     FT="java -cp ... org.flagos.trace.cli.FlagtraceCli" benchmarks/run-handoff-rate.sh ...  # flagtrace from a bundle
#     RUN_OPTIONS="--agent-jar JAR" ...    # options of `run` (flagtrace from classes, not its jar, needs this one)
#     ROUNDS=3 ...                          # every thread count 3 times
#
# CMD is benchmarks/native/launch_rate_loop.c on scripts/fake-gpu-env cupti's fakes: THREADS threads launching as
# fast as the fake runtime lets them, each launch a runtime and a kernel record (and a binding inside the NVTX
# range every thread opens per 1,000 launches). The fake CUPTI completes a buffer at FAKE_CUPTI_FILL_BYTES
# (8 MB here, the injected library's buffer size, as a real CUPTI fills them). Per thread count (and round, ROUNDS),
# one JSON line, each rate the program's own (first launch to last):
#   floor:        the fake CUPTI loaded (LD_PRELOAD) but no tool: the fake's calls, no record made;
#   fake_records: a tool that enables the kinds and frees each buffer unread (benchmarks/native/handoff_discard.c):
#                 what the fake's recording costs, with no hand-off;
#   sink:         the injected library (INJECT, default target/classes/flagtrace-inject/libflagtrace_inject.so) as
#                 under `run`, its socket read and discarded by a sink (handoff_discard.c): the hand-off without
#                 the flagtrace process; null when INJECT is missing;
#   run:          under `flagtrace run`: the rate, the device records the library handed over
#                 (flagtrace_run_device_records), what it dropped (flagtrace_run_records_dropped, _buffers_dropped),
#                 and run's wall and CPU (flagtrace's and the program's).
# Each *_cpu_us_per_launch is the program's user+sys CPU per launch (run: the whole run's, flagtrace's too). The
# hand-off keeps up when every launch's kernel is handed over with nothing dropped; launches_per_s says whether that
# rate is 1M/s; where run falls below sink, the flagtrace process is the limit, where sink falls below fake_records,
# the injected library is, and where fake_records falls below floor by more than a launch's recording, the fake is.
set -euo pipefail
cd "$(dirname "$0")/.."
per_thread=${1:-250000}
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
eval "$(scripts/fake-gpu-env cupti)"
cc -O2 -Wall -Werror -pthread -o "$work/storm" benchmarks/native/launch_rate_loop.c -lcudart
cc -O2 -Wall -Wextra -Werror -shared -fPIC -DDISCARD_TOOL -o "$work/discard_tool.so" benchmarks/native/handoff_discard.c -ldl
cc -O2 -Wall -Wextra -Werror -o "$work/sink" benchmarks/native/handoff_discard.c
fakes=$(dirname "$(find target/fake-gpu/cupti -name libcupti.so | head -1)")
inject=${INJECT:-target/classes/flagtrace-inject/libflagtrace_inject.so}
read -r -a ft <<< "${FT:-./flagtrace}"
export FAKE_CUPTI_FILL_BYTES=${FAKE_CUPTI_FILL_BYTES:-8388608}
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); fill $FAKE_CUPTI_FILL_BYTES B; $per_thread launches per thread; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
field() { grep -o "\"$1\" *: *[0-9]*" "$2" | head -1 | grep -o '[0-9]*$' || echo null; }
# storm THREADS ENV...: runs the program with ENV, sets rate (launches/s) and cpu (us of CPU per launch)
storm() {
  local t=$1; shift
  env "$@" /usr/bin/time -f '%e %U %S' -o "$work/storm-time" "$work/storm" "$t" "$per_thread" > "$work/storm-out"
  rate=$(grep -o 'launches_per_s=[0-9]*' "$work/storm-out" | cut -d= -f2)
  cpu=$(awk -v n=$((t * per_thread)) '{printf "%.3f", ($2 + $3) * 1e6 / n}' "$work/storm-time")
}
for round in $(seq "${ROUNDS:-1}"); do
for t in "${threads[@]}"; do
  storm "$t" LD_PRELOAD="$fakes/libcupti.so"
  floor=$rate floor_cpu=$cpu
  storm "$t" CUDA_INJECTION64_PATH="$work/discard_tool.so"
  records=$rate records_cpu=$cpu
  sink=null sink_cpu=null
  if [ -f "$inject" ]; then
    "$work/sink" "$work/sock" 2> "$work/sink-err" & sink_pid=$!
    for _ in $(seq 100); do [ -S "$work/sock" ] && break; sleep 0.05; done
    storm "$t" FLAGTRACE_RUN_SOCKET="$work/sock" CUDA_INJECTION64_PATH="$inject" NVTX_INJECTION64_PATH="$inject"
    wait "$sink_pid"
    sink=$rate sink_cpu=$cpu
  fi
  rm -rf "$work/out"
  /usr/bin/time -f '%e %U %S' -o "$work/time" "${ft[@]}" run ${RUN_OPTIONS:-} -d "$work/out" -- "$work/storm" "$t" "$per_thread" \
    > "$work/stdout" 2> "$work/stderr" || { echo "run failed (threads $t):"; tail -5 "$work/stderr"; exit 1; }
  trace=$(ls "$work"/out/flagtrace-*.json | grep -Ev "[.](devices|process)[.]json$" | head -1)
  head -c 8192 "$trace" > "$work/head"
  read -r wall user sys < "$work/time"
  echo "{\"threads\":$t,\"launches\":$((t * per_thread)),\"floor_launches_per_s\":$floor,\"floor_cpu_us_per_launch\":$floor_cpu,\"fake_records_launches_per_s\":$records,\"fake_records_cpu_us_per_launch\":$records_cpu,\"sink_launches_per_s\":$sink,\"sink_cpu_us_per_launch\":$sink_cpu,\"run_launches_per_s\":$(grep -o 'launches_per_s=[0-9]*' "$work/stdout" | cut -d= -f2),\"device_records_handed\":$(field flagtrace_run_device_records "$work/head"),\"records_dropped\":$(field flagtrace_run_records_dropped "$work/head"),\"buffers_dropped\":$(field flagtrace_run_buffers_dropped "$work/head"),\"run_wall_s\":$wall,\"run_cpu_s\":$(awk "BEGIN{print $user + $sys}"),\"run_cpu_us_per_launch\":$(awk -v n=$((t * per_thread)) "BEGIN{printf \"%.3f\", ($user + $sys) * 1e6 / n}")}"
done
done
