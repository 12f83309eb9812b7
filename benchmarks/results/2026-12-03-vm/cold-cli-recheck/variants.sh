#!/usr/bin/env bash
# The 1M-record cold replay (-Xmx256m, taskset -c 0,1) at HEAD with each launcher feature added since 2026-12-01 07:58
# (cold-cli.txt) turned off in turn, rounds interleaved: plain, FLAGTRACE_CDS=0, FLAGTRACE_JIT_BOUNDARIES=0, G1
# instead of the serial collector. usage: variants.sh CAPTURE_DIR RAW_DIR ROUNDS [CAPTURE]
mkdir -p "$2"; cap="$(cd "$1" && pwd)"; raw="$(cd "$2" && pwd)"; rounds="$3"; capture="${4:-s1m.fltrbuf}"; root="$(cd "$(dirname "$0")/../../../.." && pwd)"
for i in $(seq 1 "$rounds"); do
  for v in plain nocds nojit g1; do
    env=(FLAGTRACE_JAVA_OPTS=-Xmx256m)
    case $v in nocds) env+=(FLAGTRACE_CDS=0) ;; nojit) env+=(FLAGTRACE_JIT_BOUNDARIES=0) ;; g1) env=("FLAGTRACE_JAVA_OPTS=-Xmx256m -XX:+UseG1GC") ;; esac
    f="$raw/$v.${capture%%.*}.round$i.txt"; load="$(cut -d' ' -f1-3 /proc/loadavg)"
    { echo "# $(date -u '+%F %T UTC') load $load"; echo "# ${env[*]} /usr/bin/time -v taskset -c 0,1 ./flagtrace replay $capture -o t.variant.json"; } > "$f"
    (cd "$cap" && env "${env[@]}" /usr/bin/time -v taskset -c 0,1 "$root/flagtrace" replay "$capture" -o t.variant.json >> "$f" 2>&1)
    awk -v v=$v -v i=$i -v load="$load" -F': ' '/User time/{u=$2} /System time/{s=$2} /Elapsed/{n=split($2,p,":"); w=0; for(k=1;k<=n;k++) w=w*60+p[k]} /Maximum resident/{r=$2} END{printf "%s round=%d wall_s=%.2f user_s=%.2f sys_s=%.2f cpu_s=%.2f rss_kib=%d load=%s\n", v, i, w, u, s, u+s, r, load}' "$f"
  done
done
