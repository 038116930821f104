#!/bin/bash
# CPU time per execute of one model with two edgefleet-run binaries, A and B
# alternated, one thread, pinned to one core. CPU time (user + sys) rather
# than wall time, so that a loaded host (other jobs on the same core) slows
# the figures less; cache sharing still does. Per execute =
# (CPU of a run with N + 5 iterations - CPU of a run with 5) / N, so load,
# packing and the first run cancel.
#
#   tools/bench/cpu_ab.sh A_BIN B_BIN MODEL.pte [ROUNDS] [N] [CORE]
set -euo pipefail
if [[ $# -lt 3 ]]; then
  sed -n 2,9p "$0"
  exit 2
fi
a=$1 b=$2 model=$3 rounds=${4:-3} n=${5:-40} core=${6:-1}
TIMEFORMAT='%U %S'
cpu() {  # cpu BIN ITERATIONS -> seconds of user + sys
  local t
  t=$({ time nice -n 19 taskset -c "$core" "$1" run "$model" --threads 1 --warmup 0 \
        --iterations "$2" >/dev/null; } 2>&1 | tail -1)
  awk -v t="$t" 'BEGIN { split(t, f, " "); printf "%.4f", f[1] + f[2] }'
}
for ((r = 1; r <= rounds; ++r)); do
  for arm in A B; do
    bin=$a
    [[ $arm == B ]] && bin=$b
    long=$(cpu "$bin" $((n + 5)))
    short=$(cpu "$bin" 5)
    awk -v arm=$arm -v r=$r -v l="$long" -v s="$short" -v n="$n" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
      'BEGIN { printf "round %d %s %.3f ms CPU per execute (load %s)\n", r, arm, (l - s) * 1000 / n, load }'
  done
done
