#!/usr/bin/env bash
# Run ON the NVIDIA machine, from the repository root (issue 16's done-when): one live capture that
# holds every kind flagtrace records, in torch's step schedule, and torch 2.11's trace of the same
# work, in one device command.
#  1. the kinds workload from Java in steps (run-device-record.sh with SCHEDULE): 5 steps, wait 1,
#     warmup 1, active 2 (one cycle: ProfilerStep#2 and #3), each step's work in a kinds::step op;
#     NVTX ranges from Java (.device/native, benchmarks/device/java-nvtx/build.sh), Java stacks of 8
#     frames, unified-memory transfer records (-Dflagtrace.cupti.unifiedMemory=true); the cycle's
#     buffers dumped and replayed;
#  2. torch_kinds.py: the same work under torch.profiler, its scheduled run the same schedule
#     (record_shapes, profile_memory, with_stack, cuda sync events), then a plain run.
# Writes $OUT/h200-java-steps.tgz (the cycle, its dump, sidecars and replay) and
# $OUT/h200-java-steps-torch.tgz (torch's traces, key_averages tables, summary). Nonzero exit if
# either part failed; both always run.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
CAPTURE_NAME=${CAPTURE_NAME:-h200-java-steps} WORKLOAD=kinds SCHEDULE=wait=1,warmup=1,active=2,repeat=1 STEPS=5 STACK=8 \
  FLAGTRACE_JAVA_OPTS="${FLAGTRACE_JAVA_OPTS:--Dflagtrace.cupti.unifiedMemory=true}" benchmarks/run-device-record.sh
java=$?
work=$(mktemp -d)
# torch loads its own CUPTI (the nvidia-cuda-cupti wheel); NVTX must not inject the toolkit's.
(unset NVTX_INJECTION64_PATH; PYTHONUNBUFFERED=1 timeout 300 python3 benchmarks/device/kinds-capture/torch_kinds.py "$work/torch" \
  > "$work/torch.log" 2>&1)
torch=$?
echo "torch exit $torch" >> "$work/torch.log"
tail -5 "$work/torch.log"
tar czf "$OUT/${CAPTURE_NAME:-h200-java-steps}-torch.tgz" -C "$work" torch torch.log
rm -rf "$work"
echo "java steps exit $java, torch exit $torch"
[[ $java -eq 0 && $torch -eq 0 ]]
