#!/usr/bin/env bash
# Builds libflagtrace_nvtx_jni.so (the kinds workload's NVTX calls from Java) into OUT_DIR, here,
# where a JDK and the CUDA 13 headers are (NVTX v3 is header-only: nothing is linked but libdl).
# Usage: benchmarks/device/java-nvtx/build.sh OUT_DIR   (CUDA=/usr/local/cuda-13.0 by default)
set -euo pipefail
out=${1:?usage: build.sh OUT_DIR}
cuda=${CUDA:-/usr/local/cuda-13.0}
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
[[ -f "$cuda/include/nvtx3/nvToolsExt.h" ]] || { echo "build.sh: no $cuda/include/nvtx3/nvToolsExt.h (set CUDA)" >&2; exit 2; }
[[ -f "$java_home/include/jni.h" ]] || { echo "build.sh: no jni.h under $java_home (set JAVA_HOME)" >&2; exit 2; }
mkdir -p "$out"
cc -O2 -shared -fPIC -Wall -Werror -o "$out/libflagtrace_nvtx_jni.so" "$(dirname "$0")/flagtrace_nvtx_jni.c" \
   -I"$java_home/include" -I"$java_home/include/linux" -I"$cuda/include" -ldl
echo "$out/libflagtrace_nvtx_jni.so"
