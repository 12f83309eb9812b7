#!/usr/bin/env bash
# harness.sh PARQUET LIMIT STOP [PROFILE_STEP]: Harness (Harness.java.txt, compiled with javac -cp target/classes:target/lib/* into
# target/harness-classes) with the launcher's flags (-Xmx256m, serial GC, budget 1g), /usr/bin/time -v, nice 10; LIMIT sets memory_limit,
# STOP the table to stop after (none: the whole build); HJ: more flags (-Dh.steplimit=, -Dh.slice=, -Dh.verbose=1)
h="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$h/../../.." && pwd)"
L=""; for f in $root/target/lib/*.jar; do L="$L:$f"; done
nice -n 10 /usr/bin/time -v java -Xmx256m -XX:+UseSerialGC -Dflagtrace.analyze.memory=1g ${HJ:-} -Dh.limit=$2 -cp ${HCLASSES:-target/harness-classes}:${HCP:-$root/target/classes}:$root/target/flagtrace.jar$L org.flagos.trace.sql.Harness "$1" "$3" "${4:-}" 2> ${HTIME:-/tmp/agBD-harness.time}
echo "rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg) end=$(date -u +%T)"
grep -E "Elapsed|User time|System time|Maximum resident" ${HTIME:-/tmp/agBD-harness.time} | sed 's/^\s*//' | tr '\n' ' '; echo
grep -iE "error|exception" ${HTIME:-/tmp/agBD-harness.time} | head -5
