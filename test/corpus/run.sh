#!/usr/bin/env bash
# Corpus tests: run whole tools over real code objects.
#   run.sh clang|triton|stock|debian|fuzz-replay TOOLS_DIR CORPUS_DIR LLVM_BINDIR
# clang:  the round-trip gate over every kernel the tests compiled (corpus/clang/build.sh).
# triton: the gate over the committed Triton 3.6 code objects.
# stock:  recovered files reassembled by the stock llvm-mc/ld.lld, compared with --against.
# debian: the gate over code objects extracted by hsaco-recover itself from Debian's ROCm
#         libraries (rocsparse, rocrand, the HSA runtime); >= 2000 kernels, >= 99% must pass.
# rebuild: every compiled and Triton object recovered, rebuilt by hsaco-rebuild against itself
#         (--abi-of) and compared with the original: identical; declared resources are exactly
#         the scanned ones.
# edits:  every kernel of every compiled and Triton object edited (s_nop blocks and independent
#         ALU ops on v255/s99 inserted at the start of its body), rebuilt with --abi-of:
#         branches and PC-relative references decode to the same targets, register counts are
#         raised in descriptor and metadata as the scan says (a kernel whose workgroup size
#         cannot have 256 VGPRs per wave is refused naming that limit, then edited on v0); a
#         changed kernarg size is refused.
# fuzz-replay: the fuzzer's saved corpus and crashes through the tool: no crash.
set -euo pipefail
kind=$1 tools=$2 corpus=$3 llvm_bindir=$4
here=$(cd "$(dirname "$0")" && pwd)
recover=$tools/hsaco-recover
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

summary() { # parse "total: N code objects, P/K kernels pass"
  grep -E '^total: ' "$1" | tail -1
}

# Compiled code: every kernel's descriptor and metadata are exactly LLVM's counts for its code
# (hsaco-rebuild --resources -q prints only kernels that are not, then the summary).
resources_exact() {
  "$tools/hsaco-rebuild" --resources -q "$@" > "$work/res"
  if grep -v '^resources: ' "$work/res" | grep -q .; then
    echo "FAIL: declared resources not LLVM's counts:"; head -20 "$work/res"; exit 1
  fi
  cat "$work/res"
}

case $kind in
clang)
  bash "$here/clang/check.sh" "$corpus/clang"
  shopt -s nullglob
  files=("$corpus"/clang/gfx*/*.hsaco)
  [ ${#files[@]} -ge 40 ] || { echo "expected >= 40 compiled code objects, found ${#files[@]}"; exit 1; }
  "$recover" --check -q "${files[@]}" | tee "$work/out"
  summary "$work/out"
  ;;
triton)
  files=("$here"/triton/gfx*/*.hsaco)
  [ ${#files[@]} -eq 46 ] || { echo "expected 46 Triton code objects, found ${#files[@]}"; exit 1; }
  "$recover" --check -q "${files[@]}" | tee "$work/out"
  summary "$work/out"
  ;;
stock)
  n=0
  for f in "$corpus"/clang/gfx*/*.hsaco "$here"/triton/gfx*/*.hsaco; do
    "$recover" "$f" -o "$work/k.s" -q
    # The header's own command line, run as written: this LLVM's tools by full path, writing
    # k.rebuilt.hsaco beside k.s.
    cmd=$(sed -n 's/^; reassemble: //p' "$work/k.s")
    [[ "$cmd" == "$llvm_bindir/llvm-mc "* ]] || { echo "FAIL header command: $cmd"; exit 1; }
    rm -f "$work/k.rebuilt.hsaco"
    bash -c "$cmd"
    "$recover" --check -q --against "$work/k.rebuilt.hsaco" "$f" ||
      { echo "FAIL stock rebuild of $f"; exit 1; }
    n=$((n + 1))
  done
  echo "stock llvm-mc + ld.lld: $n code objects rebuilt identical"
  ;;
debian)
  libdir=/usr/lib/x86_64-linux-gnu
  for lib in librocsparse.so.0 librocrand.so.1 libhsa-runtime64.so.1; do
    [ -e "$libdir/$lib" ] || { echo "missing $libdir/$lib: apt-get install librocsparse0 librocrand1 libhsa-runtime64-1"; exit 1; }
  done
  # The HSA runtime's blit kernels (gfx9 ones: the others are code object v2 or not gfx9).
  # --list reads what it lists: the code object v2 ones are errors, the others listed.
  "$recover" --list --keep-going "$libdir/libhsa-runtime64.so.1" > "$work/uris" 2> "$work/list-err" || true
  bad=$(grep -v -E 'unsupported code object version' "$work/list-err" || true)
  [ -z "$bad" ] || { echo "unexpected --list errors:"; echo "$bad"; exit 1; }
  [ -s "$work/uris" ] || { echo "--list found no code object in the HSA runtime"; exit 1; }
  # rocrand (gfx908 + gfx90a) and the first rocsparse bundles for gfx90a and gfx908.
  "$recover" --list --arch gfx90a "$libdir/librocrand.so.1" >> "$work/uris"
  "$recover" --list --arch gfx908 "$libdir/librocrand.so.1" >> "$work/uris"
  # (ASMEVO_DEBIAN_ALL=1: every code object of every gfx9 target, the long run.)
  for arch in gfx90a gfx908; do
    "$recover" --list --arch $arch "$libdir/librocsparse.so.0" > "$work/sparse"
    if [ "${ASMEVO_DEBIAN_ALL:-0}" = 1 ]; then cat "$work/sparse" >> "$work/uris"
    else head -n "${ASMEVO_ROCSPARSE_OBJECTS:-40}" "$work/sparse" >> "$work/uris"; fi
  done
  if [ "${ASMEVO_DEBIAN_ALL:-0}" = 1 ]; then
    for lib in librocsparse.so.0 librocrand.so.1; do
      for arch in gfx900 gfx906; do "$recover" --list --arch $arch "$libdir/$lib" >> "$work/uris" || true; done
    done
  fi
  mapfile -t uris < "$work/uris"
  set +e
  "$recover" --check -q --keep-going "${uris[@]}" > "$work/out" 2> "$work/err"
  rc=$?
  set -e
  cat "$work/out"
  line=$(summary "$work/out")
  echo "$line"
  unreadable=$(grep -c 'error:' "$work/err" || true)
  grep 'error:' "$work/err" | sed 's/^/  skipped: /' | head -20
  # Only the HSA runtime's non-gfx9 / code object v2 blit kernels may be unreadable.
  bad=$(grep 'error:' "$work/err" | grep -v -E 'unsupported code object version|unsupported target gfx([0-8][0-9]{2}|1[0-9]{3}):' || true)
  [ -z "$bad" ] || { echo "unexpected errors:"; echo "$bad"; exit 1; }
  kernels=$(echo "$line" | sed -E 's#.* ([0-9]+)/([0-9]+) kernels pass.*#\2#')
  passed=$(echo "$line" | sed -E 's#.* ([0-9]+)/([0-9]+) kernels pass.*#\1#')
  echo "debian: $passed/$kernels kernels pass ($unreadable code objects skipped as unsupported)"
  [ "$kernels" -ge 2000 ] || { echo "expected >= 2000 kernels, got $kernels"; exit 1; }
  # Resources scanned from the code are exactly what the compiler declared.
  grep -v -E 'libhsa-runtime64' "$work/uris" > "$work/gfx9uris"
  mapfile -t gfx9 < "$work/gfx9uris"
  resources_exact "${gfx9[@]}"
  # Rebuilt unchanged (recover, hsaco-rebuild --abi-of, compare) for every tenth object.
  n=0
  for ((i = 0; i < ${#gfx9[@]}; i += ${ASMEVO_REBUILD_STRIDE:-10})); do
    u=${gfx9[$i]}
    "$recover" "$u" -o "$work/k.s" -q
    "$tools/hsaco-rebuild" "$work/k.s" -o "$work/k.hsaco" --abi-of "$u" -q
    "$recover" --check -q --against "$work/k.hsaco" "$u" || { echo "FAIL rebuild of $u"; exit 1; }
    n=$((n + 1))
  done
  echo "debian: $n code objects rebuilt unchanged by hsaco-rebuild, identical"
  [ $((passed * 100)) -ge $((kernels * 99)) ] || { echo "fewer than 99% pass"; exit 1; }
  [ "$rc" -le 2 ]
  ;;
rebuild)
  rebuild=$tools/hsaco-rebuild
  n=0
  for f in "$corpus"/clang/gfx*/*.hsaco "$here"/triton/gfx*/*.hsaco; do
    "$recover" "$f" -o "$work/k.s" -q
    "$rebuild" "$work/k.s" -o "$work/k.hsaco" --abi-of "$f" -q
    "$recover" --check -q --against "$work/k.hsaco" "$f" || { echo "FAIL rebuild of $f"; exit 1; }
    n=$((n + 1))
  done
  echo "hsaco-rebuild: $n code objects rebuilt unchanged, identical"
  resources_exact "$corpus"/clang/gfx*/*.hsaco "$here"/triton/gfx*/*.hsaco
  ;;
edits)
  rebuild=$tools/hsaco-rebuild
  objects=0 kernels=0 refused=0
  extra=()
  if [ "${ASMEVO_EDITS_DEBIAN:-0}" -gt 0 ]; then # the long run: Debian objects too
    for arch in gfx90a gfx908; do
      "$recover" --list --arch $arch /usr/lib/x86_64-linux-gnu/librocsparse.so.0 > "$work/l"
      mapfile -t -O "${#extra[@]}" extra < <(head -n "$ASMEVO_EDITS_DEBIAN" "$work/l")
    done
  fi
  for f in "$corpus"/clang/gfx*/*.hsaco "$here"/triton/gfx*/*.hsaco "${extra[@]}"; do
    "$recover" "$f" -o "$work/k.s" -q
    names=$(sed -n 's/^\t\.amdhsa_kernel \(.*\)$/\1/p' "$work/k.s")
    preload=$(awk '/^\t\.amdhsa_kernel / {k=$2} /amdhsa_user_sgpr_kernarg_preload_length/ && $2 > 0 {print k}' "$work/k.s")
    edit() { # edit VGPR: s_nops and independent ALU ops on VGPR/s99 at the start of every body
      awk -v kernels="$names" -v preload="$preload" -v v="$1" '
        BEGIN { n = split(kernels, K, "\n"); for (i = 1; i <= n; i++) isk[K[i]] = 1
                m = split(preload, P, "\n"); for (i = 1; i <= m; i++) pre[P[i]] = 1 }
        function ins() { print "\ts_nop 3"; print "\ts_nop 0"; print "\tv_mov_b32 " v ", " v; print "\ts_mov_b32 s99, s99" }
        { print }
        /^[A-Za-z_.$][A-Za-z0-9_.$]*:$/ { name = substr($0, 1, length($0) - 1)
          if (name in isk) { if (name in pre) wait = 1; else ins() } }
        wait && $0 == "\t.endif" { ins(); wait = 0 }' "$work/k.s" > "$work/e.s"
    }
    edit v255
    added=$(( $(wc -l < "$work/e.s") - $(wc -l < "$work/k.s") ))
    nk=$(echo "$names" | grep -c .)
    [ "$added" -eq $((4 * nk)) ] || { echo "FAIL: inserted $added lines for $nk kernels in $f"; exit 1; }
    raised=1
    rm -f "$work/e.hsaco"
    if ! "$rebuild" "$work/e.s" -o "$work/e.hsaco" --abi-of "$f" -q 2> "$work/err"; then
      # 256 VGPRs do not fit a kernel whose .max_flat_workgroup_size puts more than 2 waves on
      # a SIMD: refused, naming that limit, and nothing written. Then the same edit on v0.
      if grep -v -E 'abi_invalid: kernel .*: compute_pgm_rsrc1\.granulated_workitem_vgpr_count: allocates [0-9]+ VGPRs per wave; a [0-9]+-work-item workgroup \(\.max_flat_workgroup_size\) puts [0-9]+ waves on each SIMD, which leaves [0-9]+ VGPRs per wave on gfx' "$work/err" | grep -q . ||
         [ -e "$work/e.hsaco" ]; then
        echo "FAIL rebuild of edited $f"; cat "$work/err"; exit 1
      fi
      refused=$((refused + 1)) raised=0
      edit v0
      "$rebuild" "$work/e.s" -o "$work/e.hsaco" --abi-of "$f" -q || { echo "FAIL rebuild of edited $f (v0)"; exit 1; }
    fi
    # Decoded again: the same branches to the same labels, the same PC-relative targets.
    "$recover" "$work/e.hsaco" -o "$work/e2.s" -q
    shape() { grep -E '^\s(s_cbranch_[a-z0-9]+|s_branch|s_call_b64) |^\.LBB[0-9]+:|@rel32@' "$1" | sed 's/[[:space:]]*$//'; }
    diff <(shape "$work/e.s") <(shape "$work/e2.s") > /dev/null || { echo "FAIL: control flow or PC-relative targets changed in $f"; diff <(shape "$work/e.s") <(shape "$work/e2.s") | head; exit 1; }
    # Register counts raised as the scan says, in descriptor and metadata.
    "$rebuild" --resources "$work/e.hsaco" > "$work/res" || { echo "FAIL: resources of edited $f"; cat "$work/res"; exit 1; }
    low=$(awk '/^(exact|fits)/ { split($0, a, " vgpr "); split(a[2], b, "/"); if (b[1] < 256) print }' "$work/res")
    [ "$raised" -eq 0 ] || [ -z "$low" ] || { echo "FAIL: VGPR count not raised in $f: $low"; exit 1; }
    # A changed kernarg size is refused with the field named.
    awk '!d && /\.amdhsa_kernarg_size/ { print "\t\t.amdhsa_kernarg_size " $2 + 8; d = 1; next } { print }' "$work/k.s" > "$work/a.s"
    set +e
    "$rebuild" "$work/a.s" -o "$work/a.hsaco" --abi-of "$f" -q 2> "$work/err"
    rc=$?
    set -e
    [ "$rc" -eq 1 ] && grep -q 'abi_invalid: kernel .*: kernarg_size: ' "$work/err" && [ ! -e "$work/a.hsaco" ] ||
      { echo "FAIL: kernarg size change not refused for $f (exit $rc)"; cat "$work/err"; exit 1; }
    objects=$((objects + 1)) kernels=$((kernels + nk))
  done
  echo "edits: $kernels kernels in $objects code objects edited, rebuilt and checked ($refused objects refused v255 for their workgroup size, edited on v0)"
  ;;
fuzz-replay)
  bash "$here/../fuzz_replay.sh" "$(dirname "$tools")"
  ;;
*)
  echo "unknown corpus test $kind"; exit 2 ;;
esac
