#!/usr/bin/env bash
# Run ON the NVIDIA machine, from the repository root (issue 16): builds and runs
# benchmarks/device/kinds-capture/kinds_capture.cu (a CUPTI capture of SYNCHRONIZATION, OVERHEAD,
# MARKER(_DATA), MEMORY2, MEMCPY2 and graph-launched kernels beside the decoded kinds), checks it,
# then runs torch_kinds.py (the same work under torch.profiler) twice: the native caching
# allocator, and PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync.
# Every step's exit code and output go into the tar; one failing step does not stop the others.
# Writes $OUT/h200-kinds.tgz (capture, logs, torch summaries and tables) and
# $OUT/h200-kinds-torch.tgz (torch's trace files; split into .partNN if over 15 MiB).
# Typically 2-4 minutes; the step limits add up to about 12.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
name=${CAPTURE_NAME:-h200-kinds}
src=benchmarks/device/kinds-capture
work=$(mktemp -d)
mkdir -p "$work/capture" "$work/logs" "$work/build"
steps="$work/logs/steps.txt"
: > "$steps"

# step NAME TIMEOUT COMMAND...: runs it, stdout+stderr to logs/NAME.log, exit code to steps.txt.
step() {
  local label=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" > "$work/logs/$label.log" 2>&1
  local rc=$?
  echo "$label exit $rc (${limit}s limit, $((SECONDS - t0)) s)" | tee -a "$steps"
  return $rc
}

first_dir_with() {  # first_dir_with FILE DIR...: the first DIR holding FILE
  local file=$1; shift
  for dir in "$@"; do [[ -e "$dir/$file" ]] && { echo "$dir"; return 0; }; done
  return 1
}

cuda=${CUDA_HOME:-/usr/local/cuda-13.0}
[[ -d "$cuda" ]] || cuda=/usr/local/cuda
export PATH="$cuda/bin:$PATH"
cupti_inc=$(first_dir_with cupti.h "$cuda/extras/CUPTI/include" "$cuda/include" "$cuda/targets/x86_64-linux/include")
cupti_lib=$(first_dir_with libcupti.so "$cuda/extras/CUPTI/lib64" "$cuda/targets/x86_64-linux/lib" "$cuda/lib64" "$cuda/lib")
cuda_lib=$(first_dir_with libcudart.so "$cuda/targets/x86_64-linux/lib" "$cuda/lib64" "$cuda/lib")
# -lcuda wants libcuda.so; the machine may have only the driver's libcuda.so.1 (or the toolkit's stub).
libcuda_dir=$(first_dir_with libcuda.so "$cuda/targets/x86_64-linux/lib/stubs" "$cuda/lib64/stubs" "$cuda/lib/stubs" \
  /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64)
if [[ -z "$libcuda_dir" ]]; then
  so1=$(first_dir_with libcuda.so.1 /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64)
  if [[ -n "$so1" ]]; then
    mkdir -p "$work/build/ld" && ln -s "$so1/libcuda.so.1" "$work/build/ld/libcuda.so" && libcuda_dir="$work/build/ld"
  fi
fi
export LD_LIBRARY_PATH="$cupti_lib:$cuda_lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export NVTX_INJECTION64_PATH="$cupti_lib/libcupti.so"
{
  date -u
  echo "cuda=$cuda cupti_inc=$cupti_inc cupti_lib=$cupti_lib cuda_lib=$cuda_lib libcuda_dir=$libcuda_dir"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  echo "NVTX_INJECTION64_PATH=$NVTX_INJECTION64_PATH"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -2
  python3 -c 'import torch, sys; print(sys.version); print("torch", torch.__version__, torch.version.cuda, torch.cuda.device_count())'
  git log -1 --format='commit %H %s' 2>/dev/null
  ls "$cuda" "$cuda/extras" 2>&1
} > "$work/logs/env.txt" 2>&1
cat "$work/logs/env.txt"

bin="$work/build/kinds_capture"
flags=(-O2 -std=c++17 -arch=sm_90 -lineinfo -I"$cupti_inc" "$src/kinds_capture.cu" -o "$bin" -L"$cupti_lib" -L"$cuda_lib")
# The header's own definitions of the records decoded since, for the record (offsets come from layouts.json).
for struct in CUpti_ActivityUnifiedMemoryCounter3 CUpti_ActivityMemcpyPtoP4; do
  awk -v s="$struct" '/^typedef struct/ {buf=""; keep=1} keep {buf=buf $0 "\n"} $0 ~ "} " s ";" {printf "%s", buf; keep=0}' \
    "$cupti_inc/cupti_activity.h" "$cupti_inc"/cupti_activity_deprecated.h 2>/dev/null | grep -v '^ *\*\|/\*\*' 
done > "$work/logs/header-structs.txt" 2>&1
if ! step build 200 nvcc "${flags[@]}" ${libcuda_dir:+-L"$libcuda_dir"} -lcupti -lcuda; then
  # Fallback: no -lcuda (cuCtxSynchronize looked up at run time; no second context).
  if ! step build-no-libcuda 150 nvcc "${flags[@]}" -DKINDS_NO_LIBCUDA -lcupti -ldl; then
    # Last: without the unified-memory section either (the capture of before).
    step build-no-um 150 nvcc "${flags[@]}" -DKINDS_NO_LIBCUDA -DKINDS_NO_UM -lcupti -ldl
  fi
fi
tail -20 "$work/logs/build.log" 2>/dev/null
if [[ -x "$bin" ]]; then
  step capture 60 "$bin" "$name" "$work/capture"
  step check 60 python3 "$src/check_capture.py" "$work/capture" "$name"
  cat "$work/logs/check.log"
  tail -3 "$work/logs/capture.log"
else
  echo "capture skipped: no binary" | tee -a "$steps"
fi
# The capture comes back even if the torch steps run past the call's limit (replaced below).
tar czf "$OUT/$name.tgz" -C "$work" capture logs

cat "$work/capture/$name.meta.json" 2>/dev/null
grep -i "unified\|context_peer\|managed\|MEMCPY2" "$work/logs/capture.log" 2>/dev/null | head -20
if [[ "${TORCH:-1}" == 0 ]]; then  # the capture alone (TORCH=0)
  cat "$steps"; ls -l "$OUT"; rm -rf "$work"; exit 0
fi
export PYTHONUNBUFFERED=1
# torch loads its own CUPTI (the nvidia-cuda-cupti wheel); NVTX must not inject the toolkit's too.
unset NVTX_INJECTION64_PATH
step torch 200 python3 "$src/torch_kinds.py" "$work/torch"
tail -5 "$work/logs/torch.log"
PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync step torch-async 150 python3 "$src/torch_kinds.py" "$work/torch-async"
tail -5 "$work/logs/torch-async.log"
cat "$steps"

# Traces apart (they are the large part); summaries, tables and logs with the capture.
mkdir -p "$work/traces"
for run in torch torch-async; do
  [[ -d "$work/$run" ]] || continue
  mkdir -p "$work/traces/$run"
  [[ -d "$work/$run/tb" ]] && mv "$work/$run/tb" "$work/traces/$run/tb"
  [[ -f "$work/$run/plain.pt.trace.json" ]] && mv "$work/$run/plain.pt.trace.json" "$work/traces/$run/"
done
tar czf "$OUT/$name.tgz" -C "$work" capture logs $(cd "$work" && ls -d torch torch-async 2>/dev/null)
tar czf "$work/torch.tgz" -C "$work/traces" .
if [[ $(stat -c %s "$work/torch.tgz") -gt $((15 * 1024 * 1024)) ]]; then
  split -b 15M -d "$work/torch.tgz" "$OUT/$name-torch.tgz.part"
else
  mv "$work/torch.tgz" "$OUT/$name-torch.tgz"
fi
ls -l "$OUT"
rm -rf "$work"
exit 0
