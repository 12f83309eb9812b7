#!/usr/bin/env bash
# cli.sh CLASSES OUTNAME JAVAOPTS ARGS...: cold CLI run (CLASSES ahead of main's runtime jars), serial GC, /usr/bin/time -v
C=$1; O=$2; J=$3; shift 3
L=""; for f in /work/main/target/lib/*.jar; do L="$L:$f"; done
/usr/bin/time -v java $J -XX:+UseSerialGC -cp "$C$L" org.flagos.trace.cli.FlagtraceCli "$@" > res/$O.out 2> res/$O.time
echo "rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg)" >> res/$O.time
grep -E "Elapsed|User time|System time|Maximum resident" res/$O.time | sed 's/^\s*//' | tr '\n' ' '; tail -1 res/$O.time
