#!/usr/bin/env bash
# harness.sh HARNESSDIR CLASSES PARQUET: CriticalPath.build alone on DuckDB (memory_limit 1GB), digests of both tables
H=$1; C=$2; P=$3; shift 3
S=$(mktemp -d /tmp/agAV-bench/spill.XXXX)
DIGEST=1 /usr/bin/time -v java -Xmx2g -XX:+UseSerialGC "$@" -cp $H:$C:$(cat /tmp/agAV-bench/cp.txt) org.flagos.trace.sql.CpHarness $P "SET memory_limit='1GB'" "SET temp_directory='$S'" "SET preserve_insertion_order=false" 2> $S.time | grep -E "^  cp_(dist|settled|window|swept)|rounds|digest"
grep -E "Elapsed|User time|System time|Maximum resident" $S.time | sed 's/^\s*//' | tr '\n' ' '; echo " load=$(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf $S $S.time
