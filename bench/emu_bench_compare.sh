#!/bin/bash
# Two emu_bench binaries (say, one built from an older commit and one from this tree) in one
# run on one machine: they are run alternately, ROUNDS times each, and for every kernel and
# thread count the median of their lane-instructions/s per core is printed, with the ratio.
# Alternating spreads a shared machine's slow and fast moments over both. Figures are host
# times of an emulator, not GPU times.
#   bench/emu_bench_compare.sh BEFORE AFTER [ROUNDS [emu_bench options...]]
# For instance, with the tree's binary and one built from an earlier commit:
#   git worktree add /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/build -G Ninja \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C /tmp/old/build emu_bench
#   bench/emu_bench_compare.sh /tmp/old/build/bench/emu_bench build/bench/emu_bench 5
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BEFORE AFTER [ROUNDS [emu_bench options...]]" >&2
  exit 2
fi
before=$1 after=$2
rounds=${3:-5}
shift 2
[[ $# -gt 0 ]] && shift
for b in "$before" "$after"; do
  if [[ ! -x $b ]]; then
    echo "$0: $b is not an executable" >&2
    exit 2
  fi
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 0; r < rounds; ++r)); do
  for which in before after; do
    bin=$before
    [[ $which == after ]] && bin=$after
    # Rows: "<kernel name> <threads> <emu ms> <lane-inst/s/core> ..."; the name has spaces.
    "$bin" "$@" | awk -v w="$which" '$(NF-6) ~ /^[0-9]+$/ && NF >= 8 {
      name = $1; for (i = 2; i <= NF - 7; ++i) name = name " " $i
      print w "\t" name "\t" $(NF-6) "\t" $(NF-4) }' >>"$out"
  done
done
echo "emu_bench_compare: $rounds alternated rounds; median lane-inst/s per core (emulated: host time)"
printf '%-28s %3s %12s %12s %7s\n' kernel thr before after ratio
awk -F'\t' '
  { key = $2 "\t" $3; v[key, $1, ++n[key, $1]] = $4; if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
  function median(key, w,   m, i, j, t, a) {
    m = n[key, w]; for (i = 1; i <= m; ++i) a[i] = v[key, w, i]
    for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END { for (o = 1; o <= nk; ++o) { k = order[o]; split(k, p, "\t")
          b = median(k, "before"); a = median(k, "after")
          printf "%-28s %3s %12.3e %12.3e %6.2fx\n", p[1], p[2], b, a, a / b } }' "$out"
