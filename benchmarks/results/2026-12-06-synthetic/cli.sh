#!/usr/bin/env bash
# cli.sh CLASSES_DIR_OR_JAR OUTNAME ARGS...: cold CLI run as the launcher runs it (-Xmx2g, serial GC), /usr/bin/time -v
C=$1; O=$2; shift 2
/usr/bin/time -v java -Xmx2g -XX:+UseSerialGC -cp "$C:$(cat /tmp/agAI-bench/synthetic-job.classpath)" org.flagos.trace.cli.FlagtraceCli "$@" > res/$O.out 2> res/$O.time
echo "rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg)" >> res/$O.time
