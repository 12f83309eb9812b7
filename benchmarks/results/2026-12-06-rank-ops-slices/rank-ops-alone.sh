#!/usr/bin/env bash
# m.sh WHICH LIMIT [JAVA_OPTS]: rank_ops alone (RunOne) on 8 x 100k, DuckDB's memory_limit LIMIT, launcher's JVM flags
W=$1; M=$2; shift 2
L=/tmp/agBG/h/$W:$([ $W = before ] && echo /tmp/agBG/classes-before0 || echo /work/agBG/target/classes); for f in /work/agBG/target/lib/*.jar; do L="$L:$f"; done
nice -n 10 /usr/bin/time -v java -Xmx256m -Dflagtrace.analyze.memory=1g -XX:+UseSerialGC -Dr.limit=$M "$@" -cp "$L" org.flagos.trace.sql.RunOne /tmp/agBG/j8x100k/events.parquet rank_ops > o.txt 2> t.txt
echo "$W $M $*: $(head -1 o.txt | cut -c1-160) | $(grep -E 'User time|System time|Maximum resident' t.txt | sed 's/^\s*//' | tr '\n' ' ')"
