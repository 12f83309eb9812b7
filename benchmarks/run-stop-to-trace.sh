#!/usr/bin/env bash
# Issue 31 item 6, "stop to trace", on the fakes (no GPU): how long after the target's exit the trace of
# `flagtrace run -- CMD` is complete, and the CPU flagtrace spends in that time. A benchmark, not a test.
#
#     benchmarks/run-stop-to-trace.sh [LAUNCHES] [ROUNDS]      # from the repository root, after mvn test-compile
#     WORKERS=4 STAGGER=4 benchmarks/run-stop-to-trace.sh ...  # a tree: 4 processes of LAUNCHES/4 each, started
#                                                              # STAGGER s apart by a shell; the trace is merged.json
#
# CMD is benchmarks/native/stop_to_trace_loop.c built on scripts/fake-gpu-env cupti's fakes: LAUNCHES kernel
# launches (default 375,000: a kernel record and a runtime record each, 750,000 records), an NVTX range every
# 100. Each round runs it under `run` once per route, fresh JVM each:
#   old: the route of BASE (default main): InjectedRun.java of that commit compiled beside this build's classes
#   new: this checkout's classes
# and prints, per run: wall from the target's exit (its atexit line, after the injected library's exit flush)
# to the trace's last write (its mtime: the trace is written to a temporary file and renamed when complete)
# and to `run`'s own exit; flagtrace's CPU (user+sys of the JVM) after the target's exit (its total from
# /usr/bin/time less its CPU when the target exited, read by the target from /proc/PPID/stat, 10 ms ticks);
# the events the trace holds (records, ops and flow ends, as `replay` counts them); the load average before the run.
set -euo pipefail
cd "$(dirname "$0")/.."
launches=${1:-375000}
rounds=${2:-3}
workers=${WORKERS:-1}
stagger=${STAGGER:-4}
base=${BASE:-main}
work=target/stop-to-trace
rm -rf "$work"
mkdir -p "$work/old"
eval "$(scripts/fake-gpu-env cupti)"
cc -O2 -Wall -Werror -o "$work/loop" benchmarks/native/stop_to_trace_loop.c -lcudart
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile="$work/cp" > /dev/null
cp="target/classes:$(cat "$work/cp")"
git show "$base:cli/org/flagos/trace/cli/InjectedRun.java" > "$work/InjectedRun.java"
javac -nowarn -d "$work/old" -cp "$cp" "$work/InjectedRun.java" 2> "$work/javac.txt"
# run wants an agent jar for the JVMs of the tree, and flagtrace runs from classes here: the tree holds no JVM,
# so a jar that only names the agent (as the build's manifest does) stands in for the build's.
printf 'Premain-Class: org.flagos.trace.agent.FlagtraceAgent\nAgent-Class: org.flagos.trace.agent.FlagtraceAgent\n' > "$work/manifest.txt"
jar cfm "$work/agent.jar" "$work/manifest.txt"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc); $(java -version 2>&1 | head -1)"
command=("$work/loop" "$launches")
if [ "$workers" -gt 1 ]; then
  command=(sh -c 'for i in $(seq 1 "$1"); do (sleep $(( (i - 1) * $2 )); exec "$3" "$4") & done; wait' tree "$workers" "$stagger" \
    "$PWD/$work/loop" $((launches / workers)))
fi
echo "workers: $workers$( [ "$workers" -gt 1 ] && echo ", started $stagger s apart, $((launches / workers)) launches each")"
echo "date: $(date -u +%FT%TZ); base (old route): $(git rev-parse --short "$base"); new: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cli || echo ' + uncommitted')"
printf '%-5s %-3s %10s %12s %12s %12s %10s  %s\n' round route events exit_to_trace exit_to_run cpu_after_s load1 note
for round in $(seq 1 "$rounds"); do
  for route in old new; do
    classes=$cp
    [ "$route" = old ] && classes="$work/old:$cp"
    out="$work/$route-$round"
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%U %S' -o "$work/time" java -cp "$classes" org.flagos.trace.cli.FlagtraceCli run -d "$out" --agent-jar "$work/agent.jar" -- \
      "${command[@]}" > "$work/stdout" 2> "$work/stderr"
    done_ns=$(date +%s%N)
    exited=$(grep '^exited ' "$work/stderr" | sort -t= -k2 -n | tail -1) # the last process of the tree to end
    exit_ns=$(sed 's/.*realtime_ns=\([0-9]*\).*/\1/' <<< "$exited")
    ticks=$(sed 's/.*parent_cpu_ticks=\([0-9]*\).*/\1/' <<< "$exited")
    hz=$(sed 's/.*ticks_per_s=\([0-9]*\).*/\1/' <<< "$exited")
    if [ "$workers" -gt 1 ]; then trace=$out/merged.json; else trace=$(ls "$out"/flagtrace-*.json | grep -E '/flagtrace-[0-9]+\.json$'); fi
    trace_ns=$(python3 -c "import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)" "$trace")
    records=$(grep -E 'wrote [^ ]*/flagtrace-[0-9]+\.json \(' "$work/stderr" | grep -o 'trace events: [0-9]* records' | grep -o '[0-9]* records' | cut -d' ' -f1 | paste -sd+ | bc)
    read -r user sys < "$work/time"
    cpu=$(python3 -c "print(f'{$user + $sys - $ticks / $hz:.2f}')")
    printf '%-5s %-3s %10s %10.3f s %10.3f s %10s s %10s  %s\n' "$round" "$route" "$records" \
      "$(python3 -c "print(($trace_ns - $exit_ns) / 1e9)")" "$(python3 -c "print(($done_ns - $exit_ns) / 1e9)")" "$cpu" "$load" \
      "$(grep -c . "$work/stdout") stdout line(s)"
    rm -rf "$out"
  done
done
