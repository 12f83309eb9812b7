#!/usr/bin/env bash
# peaks.sh MONITOR: the largest VmHWM, the scratch folder's peak (database file and temporary files), the temporary files' peak
awk '{for(i=1;i<=NF;i++){if($i=="VmHWM:")h=$(i+1); if($i ~ /^db=/){d=substr($i,4)+0} if($i ~ /^folder=/){f=substr($i,8)+0}} if(h>H)H=h; if(f>F)F=f; if(f-d>T)T=f-d; if(d>D)D=d} END {print "VmHWM " H " kB; scratch folder peak " F " MB; temporary files peak " T " MB; database file peak " D+0 " MB"}' "$1"
