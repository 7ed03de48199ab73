#!/usr/bin/env python3
"""Probe LLVM's AMDGPU disassembler for the mnemonic of every opcode number of every gfx9
encoding family on each CDNA target. Development aid for gen_emu_ops.py: its output shows
where the targets' opcode maps differ from the CDNA4 ISA tables; those facts are written as
data (delta tables) into gen_emu_ops.py. Needs llvm-mc-22. Output: JSON on stdout,
{target: {family: {opcode: "llvm text"}}}.
Run: python3 utils/probe_llvm.py > /tmp/probe.json
"""
import json
import subprocess
import sys

MC = "/usr/bin/llvm-mc-22"
MARK = 0xBF800000  # s_nop 0


def fam_words():
    """(family, opcode, [dwords]) for each probe."""
    P = []
    for op in range(0x60):  # SOP2
        P.append(("SOP2", op, [0x80000000 | op << 23 | 4 << 16 | 8 << 8 | 12]))
    for op in range(0x1D):  # SOPK
        P.append(("SOPK", op, [0xB0000000 | op << 23 | 4 << 16 | 0x10, 0]))
    for op in range(256):
        P.append(("SOP1", op, [0xBE800000 | 4 << 16 | op << 8 | 8]))
    for op in range(128):
        P.append(("SOPC", op, [0xBF000000 | op << 16 | 8 << 8 | 12]))
    for op in range(128):
        P.append(("SOPP", op, [0xBF800000 | op << 16 | 3]))
    for op in range(256):
        P.append(("SMEM", op, [0xC0000000 | op << 18 | 1 << 17 | 8 << 6 | 2, 0x10]))
    for op in range(64):
        P.append(("VOP2", op, [op << 25 | 16 << 17 | 32 << 9 | 256 + 48]))
    for op in range(256):
        P.append(("VOP1", op, [0x7E000000 | 16 << 17 | op << 9 | 256 + 48]))
    for op in range(256):
        P.append(("VOPC", op, [0x7C000000 | op << 17 | 32 << 9 | 256 + 48]))
    for op in range(1024):
        P.append(("VOP3", op, [0xD0000000 | op << 16 | 16, (256 + 32) | (256 + 48) << 9 | (256 + 64) << 18]))
    for op in range(128):
        P.append(("VOP3P", op, [0xD3800000 | op << 16 | 0x4000 | 0, (256 + 32) | (256 + 64) << 9 | (256 + 96) << 18 | 3 << 27]))
    for op in range(256):
        P.append(("DS", op, [[0xD8000000 | op << 17 | 4, 16 | d0 << 8 | d1 << 16 | vd << 24]
                             for vd, d0, d1 in ((0, 0, 0), (0, 32, 0), (0, 32, 48), (64, 0, 0),
                                                (64, 32, 0), (64, 32, 48))]))
    for seg, fam in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
        for op in range(128):
            P.append((fam, op, [[0xDC000000 | op << 18 | seg << 14 | g << 16 | 8, 16 | d << 8 | (0x7F if seg else 0) << 16 | vd << 24]
                                for vd, d, g in ((48, 0, 0), (0, 32, 0), (48, 32, 1), (0, 0, 0))]))
    for op in range(128):
        P.append(("MUBUF", op, [0xE0000000 | op << 18 | 1 << 12 | 4, 16 | 32 << 8 | 1 << 16 | 0x80 << 24]))
    for op in range(16):
        P.append(("MTBUF", op, [0xE8000000 | op << 15 | 1 << 12 | 1 << 19 | 4, 16 | 32 << 8 | 1 << 16 | 0x80 << 24]))
    return P


def hexbytes(words):
    return ",".join("0x%02x" % ((w >> (8 * i)) & 0xFF) for w in words for i in range(4))


def probe(cpu, P):
    out = {}
    nvar = max(len(ws) if isinstance(ws[0], list) else 1 for _, _, ws in P)
    for k in range(nvar):
        Q = []
        for fam, op, ws in P:
            vs = ws if isinstance(ws[0], list) else [ws]
            if k < len(vs) and op not in out.get(fam, {}):
                Q.append((fam, op, vs[k]))
        for fam, m in probe1(cpu, Q).items():
            out.setdefault(fam, {}).update(m)
    return out


def probe1(cpu, P):
    lines = []
    for i, (_, _, ws) in enumerate(P):
        lines.append(hexbytes(ws))
        lines.append(hexbytes([MARK | (i & 1)] * 4))
    r = subprocess.run([MC, "--arch=amdgcn", "--mcpu=" + cpu, "--disassemble", "-show-encoding"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True)
    segs, cur, inmark = [], [], None
    for ln in r.stdout.splitlines():
        if ";" not in ln:
            continue
        text, enc = ln.split(";", 1)
        text = text.strip()
        enc = enc.split("[", 1)[1].rstrip("]").strip()
        if text in ("s_nop 0", "s_nop 1") and enc in (hexbytes([MARK]), hexbytes([MARK | 1])):
            if inmark != text:
                segs.append(cur)
                cur = []
            inmark = text
        else:
            inmark = None
            cur.append((text, enc))
    assert len(segs) == len(P), (len(segs), len(P))
    out = {}
    for (fam, op, ws), seg in zip(P, segs):
        if seg and seg[0][1].startswith(hexbytes(ws[:1])):
            out.setdefault(fam, {})[op] = seg[0][0]
    return out


def main():
    P = fam_words()
    res = {cpu: probe(cpu, P) for cpu in ("gfx90a", "gfx942", "gfx950")}
    json.dump(res, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
