#!/usr/bin/env bash
# Before and after a change, in one command ON the H200 machine, each figure taken for both sides in
# turn so that both see the same machine:
#   1. cold CLI, as a user runs it on 2 cores (taskset -c 0,1) at -Xmx256m: ./flagtrace replay of a
#      10M-record capture (SyntheticCapture: the real 30k-launch H200 capture repeated) to .json,
#      .pftrace, .json.gz and JSON into /dev/null (no disk); wall time and peak RSS from
#      /usr/bin/time -v                                                          -> $OUT/cold.txt
#   2. JMH ReplayThroughputBenchmark (warm, one fork per side, all cores)          -> $OUT/replay-*.txt
#   3. JMH LaunchOverheadBenchmark, modes plain, session, sessionDeferred (a fork each)   -> $OUT/launch-*.txt
# Expects, prepared elsewhere (docs/running-on-h200.md):
#   .device/jre, .device/lib/*   the runtime and every dependency jar (JMH's included)
#   .device/before/, .device/after/   flagtrace.jar, flagtrace-benchmarks.jar (test classes:
#                                     benchmarks and testing packages) and the launcher `flagtrace`
#   PART=cold|replay|launch|all benchmarks/run-device-ab.sh [ROUNDS]   (default all, 3 rounds; each
#   part takes 3 to 5 minutes, so run them as separate device commands)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
: "${OUT:?set OUT to the folder the results go to}"
rounds="${1:-3}"
part="${PART:-all}"
export PATH="$root/.device/jre/bin:$PATH"
cuda=/usr/local/cuda-13.0
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:$cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
scratch=/tmp/flagtrace-ab; rm -rf "$scratch"; mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
jopts=(-Dorg.bytedeco.javacpp.cachedir="$root/.device/javacpp-cache" -XX:ErrorFile="$OUT/hs_err_%p.log")

{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) x $(nproc)"; echo "loadavg: $(cat /proc/loadavg)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
} > "$OUT/machine-$part.txt"

# Each side's launcher finds its jar and the dependencies where the launcher expects them; the
# launcher records its class-data archive on the first run, as a user's first run does (untimed here).
for side in ${SIDES:-before after}; do
  d="$root/.device/$side"
  mkdir -p "$d/target"; ln -sfn "$root/.device/lib" "$d/target/lib"; touch "$root/.device/lib/.complete"
  cp "$d/flagtrace.jar" "$d/target/flagtrace.jar"
  "$d/flagtrace" --version > /dev/null 2>&1 || true
done

if [ "$part" = cold ] || [ "$part" = all ]; then
java "${jopts[@]}" -cp "$root/.device/after/flagtrace-benchmarks.jar:$root/.device/after/flagtrace.jar:$root/src/test/resources:$root/.device/lib/*" \
  org.flagos.trace.testing.SyntheticCapture "$scratch/s10m.fltrbuf" 10000000 | tee "$OUT/capture.txt"

cold="$OUT/cold.txt"; echo "# side format round wall_s max_rss_kib exit cpu_s(user+sys)" > "$cold"
for r in $(seq 1 "$rounds"); do
  for fmt in json pftrace json.gz null; do
    for side in ${SIDES:-before after}; do
      set +e
      FLAGTRACE_JAVA_OPTS=-Xmx256m taskset -c 0,1 /usr/bin/time -v "$root/.device/$side/flagtrace" replay "$scratch/s10m.fltrbuf" \
        -o "$([ "$fmt" = null ] && echo /dev/null || echo "$scratch/t.$fmt")" > /dev/null 2> "$scratch/time.txt"
      rc=$?; set -e
      wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$scratch/time.txt")
      rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$scratch/time.txt")
      cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ {s+=$2} END {print s}' "$scratch/time.txt")
      echo "$side $fmt $r $wall $rss $rc $cpu" | tee -a "$cold"
      [ "$rc" = 0 ] || tail -3 "$scratch/time.txt" >> "$cold"
      rm -f "$scratch/t.$fmt"
    done
  done
done
fi

for r in $(seq 1 "${JMH_ROUNDS:-2}"); do
  for side in ${SIDES:-before after}; do
    cp=".device/$side/flagtrace-benchmarks.jar:.device/$side/flagtrace.jar:src/test/resources:.device/lib/*"
    if [ "$part" = replay ] || [ "$part" = all ]; then
    java "${jopts[@]}" -cp "$cp" org.openjdk.jmh.Main ReplayThroughputBenchmark -f 1 -wi 3 -i 5 -w 2 -r 2 \
      > "$scratch/replay.txt" 2>&1 || echo "replay $side $r failed" >> "$scratch/replay.txt"
    # JMH's whole log is long: its result table (and any failure) comes back
    { echo "# $side round $r"; grep -E "^Benchmark|^ReplayThroughput|failed|Exception" "$scratch/replay.txt" || tail -20 "$scratch/replay.txt"; } \
      | tee -a "$OUT/replay.txt"
    fi
    if [ "$part" = launch ] || [ "$part" = all ]; then
    java "${jopts[@]}" -cp "$cp" org.openjdk.jmh.Main LaunchOverheadBenchmark -p mode=plain,session,sessionDeferred -f 1 \
      > "$scratch/launch.txt" 2>&1 || echo "launch $side $r failed" >> "$scratch/launch.txt"
    { echo "# $side round $r"; grep -E "^Benchmark|^LaunchOverhead|failed|Exception" "$scratch/launch.txt" || tail -20 "$scratch/launch.txt"; } \
      | tee -a "$OUT/launch.txt"
    fi
  done
done
