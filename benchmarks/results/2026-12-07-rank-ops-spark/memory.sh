#!/usr/bin/env bash
# memory.sh: rank_ops alone on DuckDB (RunOne of ../2026-12-06-rank-ops-slices, compiled into /tmp/agBH/hcls) over the
# 100k-ops table (/tmp/agBH/before/events.parquet), DuckDB's memory_limit set after open, the launcher's JVM flags,
# nice 10, /usr/bin/time -v; before (/tmp/agBH/sql-before) and after (/tmp/agBH/sql-final) in turn.
root="$(cd "$(dirname "$0")/../../.." && pwd)"
for m in ${LIMITS:-12MiB 16MiB 24MiB 32MiB}; do for w in before final; do
  nice -n 10 /usr/bin/time -v java -Xmx256m -Dflagtrace.analyze.memory=1g -XX:+UseSerialGC -Dr.limit=$m \
    -cp "/tmp/agBH/sql-$w:/tmp/agBH/hcls:$root/target/classes:$(cat /tmp/agBH-rcp.txt)" org.flagos.trace.sql.RunOne /tmp/agBH/before/events.parquet rank_ops > /tmp/agBH/o.txt 2> /tmp/agBH/t.txt
  echo "$w $m: $(head -1 /tmp/agBH/o.txt | cut -c1-170) | $(grep -E 'User time|System time|Maximum resident' /tmp/agBH/t.txt | sed 's/^\s*//' | tr '\n' ' ') load $(cut -d' ' -f1 /proc/loadavg)"
done; done
