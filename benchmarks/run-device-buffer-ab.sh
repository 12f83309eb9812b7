#!/usr/bin/env bash
# A/B ON the NVIDIA machine: launch cost of a session with 8 MiB vs 2 MiB CUPTI buffers, interleaved with the
# C floor, three rounds, one command. Needs .device prepared (docs/running-on-h200.md); results tarred into $OUT/ab.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda-13.0/bin:$PATH
J=.device/jre/bin/java
CP='.device/lib/*'
nvcc -O2 -std=c++17 -arch=sm_90 .device/cupti_floor.cu -o /tmp/floor -lcupti
for r in 1 2 3; do
  /tmp/floor plain 30; /tmp/floor cupti 30
  for mib in 8 2; do
    $J -Dorg.bytedeco.javacpp.cachedir=$PWD/.device/javacpp-cache -cp "$CP" org.openjdk.jmh.Main LaunchOverheadBenchmark -jvm $J \
      -jvmArgsAppend "-Dflagtrace.cupti.bufferMiB=$mib -Dorg.bytedeco.javacpp.cachedir=$PWD/.device/javacpp-cache" \
      -p mode=plain,sessionDeferred -f 1 -wi 3 -i 5 -rf json -rff $OUT/ab-$r-$mib.json > $OUT/ab-$r-$mib.txt 2>&1
    echo "round $r bufferMiB=$mib"; grep -E "^LaunchOverheadBenchmark|<failure>" $OUT/ab-$r-$mib.txt
  done
done
cd $OUT && tar czf ab.tgz ab-* && rm -f ab-*.json ab-*.txt
