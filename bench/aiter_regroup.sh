#!/usr/bin/env bash
# The edits of issue 38 on AITer's MI300X attention forward, modeled: the modeled speedup
# t(K0)/t(K1) of each, with one or two builds of kernel-time (e.g. the model before and after a
# change). Opt-in, not run by CI (it needs AITer's code objects):
#   bash bench/aiter_regroup.sh AITER_HSA_DIR [BIN_DIR [OLD_BIN_DIR]]
# AITER_HSA_DIR: AITer's hsa/ folder (ROCm/aiter; e.g. /work/aiter/hsa). BIN_DIR: the tools to
# use (default build/bin); OLD_BIN_DIR: a second kernel-time to compare with (its own parameter
# files), e.g. a build of an older commit.
# Kernel hsa/gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co at B1 Hq32 Hk8 S1024 d128 (grid
# 4x32x1, block 512). Edits, each on K0's recovered assembly:
#   before:  in each block of 16 ds_reads with 4 `buffer_load_dword ... lds` (+ their m0 steps)
#            among them, the 4 loads moved before the 16 ds_reads;
#   after:   the same, the 4 loads moved after them;
#   vmcnt0:  every `s_waitcnt vmcnt(8)` before an s_barrier made vmcnt(0): the prefetch lands
#            before each barrier (synchronous; must be slower on hardware).
# On hardware the regroupings should change little (speedup near 1) and vmcnt0 must be slower
# (speedup below 1). Then K0 alone at Hq 64 against Hq 32 (twice the CUs busy, the same work
# each), which AITer's published MI300X figures put at 1.62x the time. Each K1 is rebuilt with --abi-of K0; the edits are not checked with
# kernel-diffcheck here (run it on the files in the work folder to do so).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 AITER_HSA_DIR [BIN_DIR [OLD_BIN_DIR]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
hsa=$(cd "$1" && pwd)
bin=$(cd "${2:-$here/build/bin}" && pwd)
old=${3:+$(cd "$3" && pwd)}
co=$hsa/gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co
[ -f "$co" ] || { echo "$0: error: '$co': no such file" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/aiter_regroup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The launch spec, from the host code's fields (test/corpus/aiter/gen_specs.py).
python3 - "$here/test/corpus/aiter" "$hsa" "$work" > /dev/null <<'EOF'
import importlib.util, os, sys
folder, hsa, work = sys.argv[1:]
spec = importlib.util.spec_from_file_location("gen_specs", os.path.join(folder, "gen_specs.py"))
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)
g.HERE = work
name = "fmha_fwd_hd128_bf16_rtne"
for spec, Hq in (("spec", 32), ("spec64", 64)):
    B, Hk, S, D = 1, 8, 1024, 128
    f = g.fmha_v3_bf16_fields(B, Hq, Hk, S, S, D, D, 256, 5, "s_opt = tune_opt (5, no mask)")
    g.write_spec(spec, os.path.join(hsa, "gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co"),
                 f"_ZN5aiter{len(name)}{name}E", [(S + 255) // 256, Hq, B], [512, 1, 1], f,
                 f"AITer fmha_v3_fwd batch mode, no mask: B={B} Hq={Hq} Hk={Hk} Sq=Sk={S} d={D}")
EOF

"$bin/hsaco-recover" "$co" -o "$work/k0.s"

# The three edits, on the recovered text.
python3 - "$work" <<'EOF'
import re, sys
work = sys.argv[1]
lines = open(f"{work}/k0.s").read().split("\n")
DS = re.compile(r"\s*ds_read_b")
LOAD = re.compile(r"\s*buffer_load_dword\b.* lds$")
M0 = re.compile(r"\s*s_add_u32 m0,")

def regroup(first):
    out, i, blocks = [], 0, 0
    while i < len(lines):
        # 4 x (4 ds_reads, a load into LDS, its m0 step)
        j, reads, loads, ok = i, [], [], True
        for _ in range(4):
            if not (j + 6 <= len(lines) and all(DS.match(l) for l in lines[j:j + 4])
                    and LOAD.match(lines[j + 4]) and M0.match(lines[j + 5])):
                ok = False
                break
            reads += lines[j:j + 4]
            loads += lines[j + 4:j + 6]
            j += 6
        if ok:
            out += loads + reads if first else reads + loads
            blocks += 1
            i = j
        else:
            out.append(lines[i])
            i += 1
    return out, blocks

def sync():
    out, n = list(lines), 0
    for k in range(len(out) - 1):
        if re.match(r"\s*s_waitcnt vmcnt\(8\)", out[k]) and out[k + 1].strip() == "s_barrier":
            out[k] = out[k].replace("vmcnt(8)", "vmcnt(0)")
            n += 1
    return out, n

for name, (text, n) in (("before", regroup(True)), ("after", regroup(False)),
                        ("vmcnt0", sync())):
    if n == 0:
        sys.exit(f"aiter_regroup: edit {name} found nothing to change in K0")
    open(f"{work}/{name}.s", "w").write("\n".join(text))
    print(f"edit {name}: {n} {'waits' if name == 'vmcnt0' else 'blocks'} changed",
          file=sys.stderr)
EOF

for e in before after vmcnt0; do
  "$bin/hsaco-rebuild" -q "$work/$e.s" -o "$work/$e.co" --abi-of "$co"
done

# t(K0)/t(K1) of each edit under one kernel-time: its ratio is t(K1)/t(K0).
speedups() { # KERNEL_TIME LABEL
  local kt=$1 label=$2 e r
  for e in before after vmcnt0; do
    r=$("$kt" --json "$co" "$work/$e.co" --spec "$work/spec.json" --threads 2 |
      python3 -c 'import json,sys; b=json.load(sys.stdin)["body"]; k=b["kernels"]
print("%.4f %.3f %.3f" % (1 / b["ratio"]["value"], k[0]["microseconds"], k[1]["microseconds"]))')
    set -- $r
    printf '%-10s %-8s speedup %s  (K0 %s us, K1 %s us, modeled)\n' "$label" "$e" "$1" "$2" "$3"
  done
}
# The same kernel on twice the CUs: Hq 64 (256 workgroups on 304 CUs) against Hq 32 (128), each
# workgroup doing the same work. AITer's op_tests/cpp/mha/README.md (MI300X, BF16, hipEvents over
# 10 launches): 338.07 TFLOP/s at Hq 32 and 418.36 at Hq 64, i.e. 50.8 and 82.1 us for
# 4 B Hq S^2 d FLOP: 1.62x the time.
twice() { # KERNEL_TIME LABEL
  local kt=$1 label=$2
  "$kt" --json "$co" --spec "$work/spec.json" --threads 2 > "$work/t32.json"
  "$kt" --json "$co" --spec "$work/spec64.json" --threads 2 > "$work/t64.json"
  python3 - "$work" "$label" <<'EOF'
import json, sys
w, label = sys.argv[1:]
t = [json.load(open(f"{w}/t{n}.json"))["body"]["kernels"][0] for n in (32, 64)]
f = lambda k: " at %.0f MHz" % k["clock_mhz"] if "clock_mhz" in k else ""
print("%-10s Hq64/Hq32 time %.3f  (Hq32 %.3f us%s, Hq64 %.3f us%s, modeled; published 1.62)"
      % (label, t[1]["microseconds"] / t[0]["microseconds"], t[0]["microseconds"], f(t[0]),
         t[1]["microseconds"], f(t[1])))
EOF
}
speedups "$bin/kernel-time" "model"
twice "$bin/kernel-time" "model"
if [ -n "$old" ]; then
  speedups "$old/kernel-time" "old-model"
  twice "$old/kernel-time" "old-model"
fi
