#!/usr/bin/env bash
# analyze.sh NAME CLASSES LIB EVENTS BUDGET [JAVA_OPTS...] [-- ANALYZE_ARGS...]: `analyze EVENTS -o W/NAME-out` as the launcher runs it (-Xmx256m,
# serial GC, -Dflagtrace.analyze.memory=BUDGET: 1g is the launcher's, 562m a quarter of DuckDB's 616 MiB), from the classes
# CLASSES and LIB's jars (no jar rebuilt under it), nice 10, under /usr/bin/time -v, with ../2026-12-07-analyze-64x1m/monitor.sh every 15 s; DuckDB's
# scratch folder under W/NAME-tmp (java.io.tmpdir). W is this script's folder's run/ unless W is set.
# NAME.time: /usr/bin/time's figures and the exit; NAME.monitor: monitor.sh's lines; NAME.err: the terminal's error lines.
here="$(cd "$(dirname "$0")" && pwd)"
N=$1; C=$2; L=$3; E=$4; B=$5; shift 5
X=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do X+=("$1"); shift; done; [ "${1:-}" = -- ] && shift
W=${W:-$here/run}; mkdir -p "$W"; rm -rf "$W/$N-out" "$W/$N-tmp"; mkdir -p "$W/$N-tmp"
cp="$C"; for j in "$L"/*.jar; do cp="$cp:$j"; done
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$W/$N.time"
nice -n 10 /usr/bin/time -v java -Xmx256m -Dflagtrace.analyze.memory="$B" -XX:+UseSerialGC "${X[@]}" -Djava.io.tmpdir="$W/$N-tmp" \
  -cp "$cp" org.flagos.trace.cli.FlagtraceCli analyze "$E" -o "$W/$N-out" "$@" > "$W/$N.out" 2> "$W/$N.err" &
t=$!
sleep 3; j=$(pgrep -P "$(pgrep -P $t)" java || pgrep -P $t java)
bash "$here/../2026-12-07-analyze-64x1m/monitor.sh" "$j" 15 > "$W/$N.monitor" &  # the 64x1m run's monitor, unchanged
wait $t; rc=$?
{ echo "rc=$rc end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"; grep -E 'Elapsed|User time|System time|Maximum resident' "$W/$N.err" | sed 's/^\s*//'; } >> "$W/$N.time"
grep -vE '^\s|Command being timed|Exit status' "$W/$N.err" | grep -v '^$' | head -5 >> "$W/$N.time"
