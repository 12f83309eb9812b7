#!/usr/bin/env bash
# Issue 31 item 6, "the hand-off keeps up with the vendor's buffers at 1M launches/s", on the fakes (no GPU needed;
# run it where the cores are free: the GPU machine's 16, not a loaded VM). A benchmark, not a test.
#
#     benchmarks/run-handoff-rate.sh [LAUNCHES_PER_THREAD] [THREAD COUNTS...]   # default 250000, threads 1 2 4 8
#     FT="java -cp ... org.flagos.trace.cli.FlagtraceCli" benchmarks/run-handoff-rate.sh ...  # flagtrace from a bundle
#
# CMD is benchmarks/native/launch_rate_loop.c on scripts/fake-gpu-env cupti's fakes: THREADS threads launching as
# fast as the fake runtime lets them, each launch a runtime and a kernel record (and a binding inside the NVTX
# range every thread opens per 1,000 launches). The fake CUPTI completes a buffer at FAKE_CUPTI_FILL_BYTES
# (8 MB here, the injected library's buffer size, as a real CUPTI fills them). Per thread count, one JSON line:
#   floor: the fake CUPTI loaded (LD_PRELOAD) but no tool: what the fake's own calls cost (no record made);
#   run:   under `flagtrace run`: the launch rate the program saw, the device records the library handed over
#          (flagtrace_run_device_records), what it dropped (flagtrace_run_records_dropped, _buffers_dropped),
#          and run's wall and CPU.
# The hand-off keeps up when every launch's kernel is handed over with nothing dropped at the rate the run side
# reached; launches_per_s says whether that rate is 1M/s.
set -euo pipefail
cd "$(dirname "$0")/.."
per_thread=${1:-250000}
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
eval "$(scripts/fake-gpu-env cupti)"
cc -O2 -Wall -Werror -pthread -o "$work/storm" benchmarks/native/launch_rate_loop.c -lcudart
fakes=$(dirname "$(find target/fake-gpu/cupti -name libcupti.so | head -1)")
read -r -a ft <<< "${FT:-./flagtrace}"
export FAKE_CUPTI_FILL_BYTES=${FAKE_CUPTI_FILL_BYTES:-8388608}
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); fill $FAKE_CUPTI_FILL_BYTES B"
field() { grep -o "\"$1\" *: *[0-9]*" "$2" | head -1 | grep -o '[0-9]*$' || echo null; }
for t in "${threads[@]}"; do
  floor=$(LD_PRELOAD="$fakes/libcupti.so" "$work/storm" "$t" "$per_thread" | grep -o 'launches_per_s=[0-9]*' | cut -d= -f2)
  rm -rf "$work/out"
  /usr/bin/time -f '%e %U %S' -o "$work/time" "${ft[@]}" run -d "$work/out" -- "$work/storm" "$t" "$per_thread" \
    > "$work/stdout" 2> "$work/stderr" || { echo "run failed (threads $t):"; tail -5 "$work/stderr"; exit 1; }
  trace=$(ls "$work"/out/flagtrace-*.json | grep -Ev "[.](devices|process)[.]json$" | head -1)
  head -c 8192 "$trace" > "$work/head"
  read -r wall user sys < "$work/time"
  echo "{\"threads\":$t,\"launches\":$((t * per_thread)),\"floor_launches_per_s\":$floor,\"run_launches_per_s\":$(grep -o 'launches_per_s=[0-9]*' "$work/stdout" | cut -d= -f2),\"device_records_handed\":$(field flagtrace_run_device_records "$work/head"),\"records_dropped\":$(field flagtrace_run_records_dropped "$work/head"),\"buffers_dropped\":$(field flagtrace_run_buffers_dropped "$work/head"),\"run_wall_s\":$wall,\"run_cpu_s\":$(awk "BEGIN{print $user + $sys}")}"
done
