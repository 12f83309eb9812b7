# Sourced by run.sh and cap.sh after `B=...` (the bundle) and `LOG=...` (the lines' file, in the work folder): the
# bundle's java, its jars as a class path suffix ($lib), the launcher's flags for summary on more than 2 cores
# ($flags), and `measure NAME CMD...` (its output in NAME.out; "NAME rc wall cpu (user sys) maxrss", by getrusage of
# the child, appended to $LOG).
java=$B/jre/bin/java
lib=""; for j in "$B"/lib/*.jar; do lib="$lib:$j"; done
flags=(--add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED -Xmx2g -XX:CompileCommand=quiet -XX:FreqInlineSize=100)
measure() {
  local name=$1; shift
  python3 -c '
import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"), stderr=subprocess.STDOUT)
w = time.time() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%-18s rc=%d wall=%.2fs cpu=%.2fs (user %.2f sys %.2f) maxrss=%dKB" % (sys.argv[1], rc, w, u.ru_utime + u.ru_stime, u.ru_utime, u.ru_stime, u.ru_maxrss))
' "$name" "$@" >> "$LOG"
}
