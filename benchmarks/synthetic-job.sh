#!/usr/bin/env bash
# Writes a synthetic N-rank job (benchmarks/java/.../SyntheticJob.java; docs/benchmarks.md says what is known
# about it): benchmarks/synthetic-job.sh DIR RANKS EVENTS_PER_RANK [STRAGGLER_RANK|-1] [SLOW_LINK 0|1]
# Needs the test classes (`mvn -B -q -o test-compile` once).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d target/test-classes/org/flagos/trace/benchmarks ] || mvn -B -q -o test-compile
[ -s target/synthetic-job.classpath ] || mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=target/synthetic-job.classpath >/dev/null
exec java -cp "target/test-classes:target/classes:$(cat target/synthetic-job.classpath)" org.flagos.trace.benchmarks.SyntheticJob "$@"
