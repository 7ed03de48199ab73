#!/usr/bin/env bash
# Opt-in corpus run over AITer's shipped hand-written code objects (ROCm/aiter `hsa/<arch>/`),
# which nobody tuned the tools to. Not part of CI (the objects are not committed; fetch
# ROCm/aiter yourself). Takes a while: about 20 minutes on 2 cores for gfx942 + gfx950.
#   bash test/corpus/aiter.sh TOOLS_DIR AITER_HSA_DIR WORK_DIR [gate|rebuild|coverage|all]
# - gate: the round-trip gate on every object (kernel items compare the kernels' real bytes),
#   with the count of instructions kept as raw words;
# - rebuild: recover -> hsaco-rebuild --abi-of K0 -> gate --against K0 on every object (an
#   unchanged file must rebuild identical), exceptions listed with their cause;
# - coverage: kernel-run --coverage per arch, counted per instruction instance.
set -uo pipefail
tools=$1 hsa=$2 work=$3 what=${4:-all}
recover=$tools/hsaco-recover
rebuild=$tools/hsaco-rebuild
run=$tools/kernel-run
mkdir -p "$work"
archs=(gfx942 gfx950)
jobs=${ASMEVO_JOBS:-$(nproc)}

for arch in "${archs[@]}"; do
  find "$hsa/$arch" -name '*.co' | sort > "$work/$arch.list"
  echo "$arch: $(wc -l < "$work/$arch.list") code objects"
done

if [ "$what" = gate ] || [ "$what" = all ]; then
  for arch in "${archs[@]}"; do
    mapfile -t objs < "$work/$arch.list"
    "$recover" --check --json --keep-going "${objs[@]}" > "$work/gate-$arch.json" 2> "$work/gate-$arch.err"
    python3 - "$work/gate-$arch.json" "$arch" <<'EOF'
import json, sys, collections
e = json.load(open(sys.argv[1]))
j = dict(e["body"], **{"pass": e["outcome"] == "ok"})
zero = sum(1 for r in j["results"] for i in r["items"]
           if i["kind"] in ("kernel", "function") and i.get("bytes", 0) == 0)
fails = collections.Counter()
for r in j["results"]:
    for i in r["items"]:
        if not i["pass"]:
            fails[(i["kind"], i.get("reason", "")[:60])] += 1
raw_objs = sum(1 for r in j["results"] if r.get("raw_instructions", 0))
print(f"{sys.argv[2]} gate: {j['objects']} objects, {j['kernels_passed']}/{j['kernels']} kernels pass, "
      f"pass={j['pass']}, {zero} code items of 0 bytes, "
      f"{j['raw_instructions']} instructions kept as raw words in {raw_objs} objects")
for k, v in fails.most_common(10):
    print(f"  {v} x {k}")
EOF
  done
fi

if [ "$what" = rebuild ] || [ "$what" = all ]; then
  one() { # K0 -> status line
    local f=$1 d
    d=$(mktemp -d)
    if ! "$recover" "$f" -o "$d/k.s" -q 2> "$d/err"; then
      echo "RECOVER $f $(head -1 "$d/err")"
    elif ! "$rebuild" "$d/k.s" -o "$d/k1.co" --abi-of "$f" --json > "$d/rep" 2> "$d/err"; then
      echo "REBUILD $f $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["body"]["violations"])' "$d/rep" 2>/dev/null || head -1 "$d/err")"
    elif ! "$recover" --check -q --against "$d/k1.co" "$f" > "$d/gate" 2>&1; then
      echo "DIFFER $f $(grep -m1 FAIL "$d/gate")"
    elif python3 -c 'import json,sys; sys.exit(1 if json.load(open(sys.argv[1]))["body"]["changes"] else 0)' "$d/rep"; then
      echo "SAME $f"
    else
      echo "CHANGED $f $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["body"]["changes"])' "$d/rep")"
    fi
    rm -rf "$d"
  }
  export -f one
  export recover rebuild
  for arch in "${archs[@]}"; do
    xargs -a "$work/$arch.list" -P "$jobs" -I{} bash -c 'one "$@"' _ {} > "$work/rebuild-$arch.txt"
    same=$(grep -c '^SAME ' "$work/rebuild-$arch.txt")
    total=$(wc -l < "$work/rebuild-$arch.txt")
    echo "$arch rebuild: $same/$total objects rebuilt unchanged, identical as the gate compares them, no resource changed"
    grep -v '^SAME ' "$work/rebuild-$arch.txt" | head -20 | sed 's/^/  /'
  done
fi

if [ "$what" = coverage ] || [ "$what" = all ]; then
  for arch in "${archs[@]}"; do
    mapfile -t objs < "$work/$arch.list"
    "$run" --coverage --json "${objs[@]}" > "$work/coverage-$arch.json" 2> "$work/coverage-$arch.err"
    python3 - "$work/coverage-$arch.json" "$arch" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["body"]
print(f"{sys.argv[2]} coverage: {j['objects_fully_covered']}/{j['objects']} objects fully covered, "
      f"{j['implemented_instructions']}/{j['instructions']} instruction instances implemented")
missing = sorted(((o['objects'], o['count'] - o['implemented'], o['mnemonic']) for o in j['ops']
                  if o['implemented'] < o['count']), reverse=True)
for objs, count, m in missing[:15]:
    print(f"  missing {m}: {count} instances in {objs} objects")
if j['skipped']:
    print(f"  skipped {len(j['skipped'])} objects")
EOF
  done
fi
