#!/usr/bin/env bash
# Fills .device/SIDE of the checkout it is run in (the one that travels to the device), one build of
# benchmarks/run-device-ab.sh, from a clone of flagtrace built here:
#   benchmarks/device-side.sh SIDE CLONE
# CLONE must have run `mvn -B -q -DskipTests package test-compile` (its jar, its test classes and its launcher
# are taken; .device/jre and .device/lib are shared by every side, docs/running-on-h200.md). For example, a
# branch against main:
#   (cd /work/main && mvn -B -q -DskipTests package test-compile) && benchmarks/device-side.sh before /work/main
#   (cd /work/agN && mvn -B -q -DskipTests package test-compile) && benchmarks/device-side.sh after /work/agN
#   then, on the device with carry [".device"]: PART=cold benchmarks/run-device-ab.sh 3
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
side="${1:?usage: device-side.sh SIDE CLONE}"; src="$(readlink -f "${2:?usage: device-side.sh SIDE CLONE}")"
[ -d "$src/target/test-classes/org/flagos/trace/benchmarks" ] || { echo "$src: no test classes; run mvn -B -q -DskipTests package test-compile there" >&2; exit 1; }
d=".device/$side"
rm -rf "$d"; mkdir -p "$d"
jar=""
for j in "$src"/target/flagtrace-*.jar; do # the main jar, not a classified one (flagtrace-V-spark.jar)
  case "$j" in *-spark.jar) ;; *) jar="$j" ;; esac
done
[ -n "$jar" ] || { echo "$src: no target/flagtrace-*.jar; run mvn -B -q -DskipTests package there" >&2; exit 1; }
cp "$jar" "$d/flagtrace.jar"
(cd "$src/target/test-classes" && jar cf "$OLDPWD/$d/flagtrace-benchmarks.jar" META-INF org/flagos/trace/benchmarks \
   org/flagos/trace/testing $(ls org/flagos/trace/cli/TestDevices*.class 2>/dev/null))
cp "$src/flagtrace" "$d/flagtrace"
echo "$d: $(git -C "$src" log --oneline -1 2>/dev/null || echo "$src")" | tee "$d/commit.txt"
