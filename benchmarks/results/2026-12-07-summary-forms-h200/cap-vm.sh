#!/usr/bin/env bash
# cap-vm.sh OLD.jar NEW.jar LIBDIR BIG.json ROUNDS: on a machine of few cores, both jars' summary --json seeing 16 cores
# (-XX:ActiveProcessorCount=16: the JVM's own threads alike in both), interleaved; the launcher's flags otherwise.
# CPU is what compares (16 scanning threads on 2 cores say nothing of wall). Lines to stdout.
set -u
old=$1 new=$2 libdir=$3 big=$4 rounds=$5
lib=""; for j in "$libdir"/*.jar; do lib="$lib:$j"; done
flags=(--add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED -Xmx2g -XX:CompileCommand=quiet -XX:FreqInlineSize=100
  -XX:ActiveProcessorCount=16)
for n in $(seq 1 "$rounds"); do
  for which in old new; do
    jar=$old; [ $which = new ] && jar=$new
    /usr/bin/time -f "$which-$n wall=%e cpu=%U+%S maxrss=%MKB load=$(cut -d' ' -f1 /proc/loadavg)" java "${flags[@]}" -cp "$jar$lib" \
      org.flagos.trace.cli.FlagtraceCli summary --json "/tmp/cap-$which.json" "$big" 2>&1 >/dev/null | tail -1
  done
done
cmp /tmp/cap-old.json /tmp/cap-new.json && echo "summary JSON identical"
