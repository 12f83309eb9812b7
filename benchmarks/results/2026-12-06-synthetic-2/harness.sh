#!/usr/bin/env bash
# harness.sh CLASSES PARQUET [java -D...]: CriticalPath.build alone under /usr/bin/time -v, digests of both tables
C=$1; P=$2; shift 2
CP0=$(cat /tmp/agAI-bench/synthetic-job.classpath)
S=$(mktemp -d /tmp/agAP-bench/spill.XXXX)
DIGEST=1 /usr/bin/time -v java -Xmx2g -XX:+UseSerialGC "$@" -cp /tmp/agAP-bench/h:$C:$CP0 org.flagos.trace.sql.CpHarness $P "SET memory_limit='1GB'" "SET temp_directory='$S'" "SET preserve_insertion_order=false" 2> $S.time | grep -E "^  cp_(dist|settled|window)|rounds|digest"
grep -E "Elapsed|User time|System time|Maximum resident" $S.time | sed 's/^\s*//' | tr '\n' ' '; echo " load=$(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf $S $S.time
