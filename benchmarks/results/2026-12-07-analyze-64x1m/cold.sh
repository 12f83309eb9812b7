#!/usr/bin/env bash
# cold.sh JOB LOG: `nice -n 10 /usr/bin/time -v ./flagtrace analyze JOB/events.parquet -o JOB/out` (the launcher's
# defaults: -Xmx256m, FLAGTRACE_ANALYZE_MEMORY 1g) from JOB, its timings and errors in LOG, monitor.sh's lines every 30 s
# in LOG.monitor; the terminal text (every row of every table) in JOB/terminal.txt, its size and last lines in LOG
h="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$h/../../.." && pwd)"
J=$1; LOG=$2; cd "$J"; rm -rf out
echo "# nice -n 10 /usr/bin/time -v ./flagtrace analyze events.parquet -o out (launcher defaults), commit $(git -C "$root" rev-parse --short HEAD), start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$LOG"
nice -n 10 /usr/bin/time -v "$root/flagtrace" analyze events.parquet -o out > terminal.txt 2> "$LOG.time" &
T=$!
for i in $(seq 60); do P=$(pgrep -f "FlagtraceCli analyze events.parquet -o out" | while read p; do [ "$(readlink /proc/$p/cwd)" = "$(pwd)" ] && echo $p; done | head -1); [ -n "$P" ] && break; sleep 1; done
"$h/monitor.sh" "$P" 30 > "$LOG.monitor" &
wait $T; rc=$?
grep -vE '^\s*(Average|Socket|Signals|Swaps|File system|Page size|Voluntary|Involuntary|Minor|Major|Exit status|Command being)' "$LOG.time" | sed 's/^\s*//' >> "$LOG"
echo "rc=$rc end=$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$LOG"
echo "terminal text: $(wc -lc < terminal.txt) (lines, bytes); its last lines:" >> "$LOG"; tail -n 4 terminal.txt >> "$LOG"
du -sh out >> "$LOG" 2>&1; ls -l out >> "$LOG" 2>&1
