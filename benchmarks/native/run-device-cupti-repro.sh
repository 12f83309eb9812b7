#!/usr/bin/env bash
# cupti_teardown_repro.cu under the teardown stress's conditions: every pair of cores gets 2 spinning
# hogs and runs the repro pinned to it again and again for SECONDS_PER_PAIR; tallies passes and exit
# codes (139: SIGSEGV); each passing run's last line (its counts) goes to passes.txt. MODES="toggle keep plain nopush noflush" gives the pairs those modes in turn
# (cupti_teardown_repro.cu says what each does); HOGS=0 runs without the spinning hogs. Results under $OUT.
set -uo pipefail
: "${OUT:?set OUT}"
export PATH=/usr/local/cuda-13.0/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda-13.0/extras/CUPTI/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
cupti_inc=$(dirname "$(find /usr/local/cuda-13.0 -name cupti.h | head -1)")
cupti_lib=$(dirname "$(find /usr/local/cuda-13.0 -name 'libcupti.so' | head -1)")
nvcc -O2 -std=c++17 -arch=sm_90 -I"$cupti_inc" -L"$cupti_lib" "$here/cupti_teardown_repro.cu" -o "$work/repro" -lcupti -lpthread || exit 3
export LD_LIBRARY_PATH="$cupti_lib:$LD_LIBRARY_PATH"
budget=${SECONDS_PER_PAIR:-240}; pairs=$(( $(nproc) / 2 ))
{ echo "date: $(date -u +%FT%TZ)"; echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "cupti: $(ls -l "$cupti_lib"/libcupti.so* | awk '{print $NF}' | tr '\n' ' ')"; echo "repro ${REPRO_ARGS:-40 8 20}, $budget s per pair, $pairs pairs, modes ${MODES:-toggle}, hogs ${HOGS:-1}"; } > "$OUT/machine.txt"
hogs=(); runners=()
for ((k = 0; k < pairs; k++)); do
  [ "${HOGS:-1}" = 0 ] || for c in $((2 * k)) $((2 * k + 1)); do taskset -c $c bash -c 'while :; do :; done' >/dev/null 2>&1 & hogs+=($!); done
  modes=(${MODES:-toggle}); mode=${modes[$((k % ${#modes[@]}))]}
  ( cd "$work"; start=$SECONDS; r=0; pass=0
    while [ $((SECONDS - start)) -lt "$budget" ]; do
      r=$((r + 1)); timeout 90 taskset -c "$((2 * k)),$((2 * k + 1))" ./repro ${REPRO_ARGS:-40 8 20} "$mode" > "run$k.txt" 2>&1; rc=$?
      if [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "$mode: $(tail -1 run$k.txt)" >> "$OUT/passes.txt"; else echo "pair $k ($mode) run $r exit $rc: $(tail -2 run$k.txt | tr '\n' ' ')" >> "$OUT/failures.txt"; fi
    done
    echo "pair $k ($mode): $pass of $r passed" >> "$OUT/tally.txt" ) &
  runners+=($!)
done
wait "${runners[@]}"
sleep 1; kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null
cat "$OUT/tally.txt"; head -20 "$OUT/failures.txt" 2>/dev/null; tail -1 "$work"/run0.txt
