#!/usr/bin/env bash
# explore2.sh: spark.sql.codegen.useIdInClassName=false (the whole-stage class's name without its stage id, so the same
# stage code in two stages or two runs can be one cached class), 3 runs in one fresh JVM; compare final-3-base.txt.
H="$(dirname "$0")/cold.sh"; D="$(dirname "$0")"
"$H" /tmp/agBO/d 3 -Dh.conf="spark.sql.codegen.useIdInClassName=false" > "$D/explore-2-noidinname.txt" 2>&1
# round 3 (05:18 UTC), in turn at the same load: main's settings, then useIdInClassName=false
"$H" /tmp/agBO/d 3 > "$D/explore-3-base.txt" 2>&1
"$H" /tmp/agBO/d 3 -Dh.conf="spark.sql.codegen.useIdInClassName=false" > "$D/explore-3-noidinname.txt" 2>&1
