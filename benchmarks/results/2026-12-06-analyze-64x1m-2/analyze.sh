#!/usr/bin/env bash
# analyze.sh OUT EVENTS [JAVA_OPTS...] -- [analyze args]: `analyze EVENTS -o OUT` as the launcher runs it (-Xmx256m,
# -Dflagtrace.analyze.memory=1g, serial GC), from this clone's target/classes and target/lib (no jar rebuilt),
# under /usr/bin/time -v, nice 10; the terminal text in OUT.out, the timings in OUT.time; ACLASSES: other classes (before/after)
root="$(cd "$(dirname "$0")/../../.." && pwd)"
O=$1; E=$2; shift 2; X=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do X+=("$1"); shift; done; [ "${1:-}" = -- ] && shift
L="${ACLASSES:-$root/target/classes}"; for f in "$root"/target/lib/*.jar; do L="$L:$f"; done
rm -rf "$O"
nice -n 10 /usr/bin/time -v java -Xmx256m -Dflagtrace.analyze.memory=1g -XX:+UseSerialGC "${X[@]}" -cp "$L" org.flagos.trace.cli.FlagtraceCli analyze "$E" -o "$O" "$@" > "$O.out" 2> "$O.time"
echo "rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg) end=$(date -u +%T)" >> "$O.time"
grep -E "Elapsed|User time|System time|Maximum resident" "$O.time" | sed 's/^\s*//' | tr '\n' ' '; tail -1 "$O.time"
