#!/usr/bin/env bash
# Proof run ON the NVIDIA machine, from the repository root, of `flagtrace run` on a program that is
# not a JVM (issue 31): benchmarks/device/inject/inject_probe.cu, built with the machine's nvcc (real
# kernels, NVTX through CUDA's header-only nvtx3), run unchanged under `flagtrace run`, so that the
# real driver loads flagtrace's injected library (CUDA_INJECTION64_PATH), the library drives the real
# libcupti and NVTX routes its ranges to it (NVTX_INJECTION64_PATH). Checks that the trace's kernels,
# copies, sets and NVTX ops equal the program's own counts, that run exits with the program's code
# (EXIT_CODE, default 3) and that its stdout is the program's line. STEPS (default 200).
# Expects .device/jre and .device/lib/* with flagtrace's jar (docs/running-on-h200.md: the jar built by
# `mvn package` carries flagtrace-inject/libflagtrace_inject.so); writes $OUT/inject/ and
# $OUT/inject.tgz; exits nonzero on any mismatch (check.txt says which).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
java="$PWD/.device/jre/bin/java"
[[ -x "$java" ]] || { echo "run-device-inject.sh: $java missing (jlinked Java 17 expected in .device/jre)" >&2; exit 2; }
jar=$(ls .device/lib/flagtrace-0*.jar 2>/dev/null | grep -v -- '-spark' | head -1)
[[ -n $jar ]] || { echo "run-device-inject.sh: no flagtrace jar in .device/lib" >&2; exit 2; }
cuda=${CUDA_HOME:-/usr/local/cuda-13.0}
lib="$cuda/targets/x86_64-linux/lib"
export LD_LIBRARY_PATH="$lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export FLAGTRACE_CUPTI_LIBRARY="${FLAGTRACE_CUPTI_LIBRARY:-$(ls "$lib"/libcupti.so* "$cuda"/extras/CUPTI/lib64/libcupti.so* 2>/dev/null | head -1)}"
dir="$OUT/inject"
rm -rf "$dir"; mkdir -p "$dir"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$dir/gpu.txt" 2>&1
"$cuda/bin/nvcc" -O2 -o "$dir/inject_probe" benchmarks/device/inject/inject_probe.cu > "$dir/build.txt" 2>&1 \
  || { echo "run-device-inject.sh: nvcc failed (build.txt)" >&2; cat "$dir/build.txt" >&2; exit 1; }
steps=${STEPS:-200}; code=${EXIT_CODE:-3}
"$dir/inject_probe" "$steps" 0 > "$dir/plain.txt" 2>&1   # the program alone: its counts without flagtrace
"$java" -Dorg.bytedeco.javacpp.cachedir="$PWD/.device/javacpp-cache" -cp "$PWD/.device/lib/*" \
    org.flagos.trace.cli.FlagtraceCli run -d "$dir/traces" --agent-jar "$PWD/$jar" -- "$dir/inject_probe" "$steps" "$code" \
    > "$dir/stdout.txt" 2> "$dir/stderr.txt"
rc=$?
{
  echo "FLAGTRACE_CUPTI_LIBRARY=$FLAGTRACE_CUPTI_LIBRARY"
  echo "run exit $rc (program's code $code)"
  fail=0
  [[ $rc -eq $code ]] || { echo "MISMATCH exit code"; fail=1; }
  expected="kernels=$((3 * steps)) memcpys=2 memsets=$steps ranges=$((2 * steps))"
  [[ "$(cat "$dir/stdout.txt")" == "$expected" ]] || { echo "MISMATCH stdout: $(head -c 300 "$dir/stdout.txt")"; fail=1; }
  trace=$(ls "$dir"/traces/flagtrace-[0-9]*.json 2>/dev/null | grep -E '/flagtrace-[0-9]+\.json$' | head -1)
  if [[ -z $trace ]]; then
    echo "MISMATCH no trace"; fail=1
  else
    echo "trace $trace"
    count() { grep -oE "\"cat\": ?\"$1\"" "$trace" | wc -l; }
    for pair in kernel:$((3 * steps)) gpu_memcpy:2 gpu_memset:$steps cpu_op:$((2 * steps)); do
      cat=${pair%%:*}; want=${pair##*:}; got=$(count "$cat")
      echo "$cat: trace $got, program $want"
      [[ $got -eq $want ]] || { echo "MISMATCH $cat"; fail=1; }
    done
    s=$(grep -oE '"ph": ?"s", ?"id"' "$trace" | wc -l); f=$(grep -oE '"ph": ?"f", ?"id"' "$trace" | wc -l)
    echo "flow starts $s, ends $f"
    grep -oE '"flagtrace_run_[a-z_]+": ?("[^"]*"|[0-9]+)' "$trace"
  fi
  echo "check $([[ $fail -eq 0 ]] && echo PASSED || echo FAILED)"
  exit $fail
} > "$dir/check.txt" 2>&1
result=$?
cat "$dir/check.txt"
tar czf "$OUT/inject.tgz" -C "$OUT" inject
exit $result
