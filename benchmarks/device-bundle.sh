# Sourced by the device scripts that run flagtrace from the bundle (run-device-session.sh, run-device-torch-run.sh,
# run-device-profiler-range.sh, run-device-two-gpus.sh), from the repository root ON the NVIDIA machine:
# unpacks the bundle in BUNDLE (default .device/ab: jre.txz, deps.txz and the jar ./flagtrace builds), puts CUDA 13.0
# on PATH and LD_LIBRARY_PATH, names the toolkit's libcupti for the injected library, and defines
# `ft ARGS...` (flagtrace's CLI from the bundle; JavaCPP's cache under $work, which the caller sets; FT_OPTS: more JVM
# options, e.g. -Dflagtrace.run.arriving=0).
bundle=$(cd "${BUNDLE:-.device/ab}" && pwd)
( cd "$bundle" && { [ -x jre/bin/java ] || tar xJf jre.txz; } && { [ -d lib ] || tar xJf deps.txz; } )
cuda=/usr/local/cuda-13.0; lib=$cuda/targets/x86_64-linux/lib
export PATH=$cuda/bin:$PATH LD_LIBRARY_PATH=$lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export FLAGTRACE_CUPTI_LIBRARY=$(ls $lib/libcupti.so.13* 2>/dev/null | head -1)
ft() { "$bundle/jre/bin/java" ${FT_OPTS:-} -Dorg.bytedeco.javacpp.cachedir="$work/javacpp" \
         -cp "$bundle/flagtrace-0.1.0-SNAPSHOT.jar:$bundle/lib/*" org.flagos.trace.cli.FlagtraceCli "$@"; }
