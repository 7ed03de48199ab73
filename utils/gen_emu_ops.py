#!/usr/bin/env python3
"""Generate the emulator's operation list and decoder tables from the CDNA ISA reference data.

Writes
  libcommon/emu/IsaOps.inc    one X-macro line per operation, ASMEVO_OP(NAME), sorted: every
                              mnemonic of the CDNA4 tables (with their _E32/_E64 suffixes), plus
                              the gfx90a/gfx940-only mnemonics the CDNA4 tables lack (EXTRA).
  libcommon/emu/IsaTables.inc the decoder's tables: per target (gfx90a, gfx940/941/942, gfx950)
                              and encoding family, opcode number -> row of kOpInfo (Op, LLVM's
                              mnemonic, operand widths in dwords and operand number types).

The CDNA4 tables are the base; the per-target differences (what LLVM 22's disassembler decodes
for each opcode number on each target, found with utils/probe_llvm.py) are written below as
data: ABSENT (opcodes a target lacks), TARGET_OPS (opcodes a target maps to another operation),
SPELLING (LLVM's mnemonic where it differs from the ISA name). The outputs are committed: the build
never needs ../shared. Run: python3 utils/gen_emu_ops.py ../shared/isa/cdna4-isa.json
"""
import json
import re
import sys
from pathlib import Path

TARGETS = ["GFX90A", "GFX940", "GFX950"]

# Mnemonics that gfx90a (CDNA2) or gfx940 (CDNA3) have and the CDNA4 tables do not.
EXTRA = [
    "V_MFMA_F32_32X32X2BF16", "V_MFMA_F32_16X16X2BF16", "V_MFMA_F32_4X4X2BF16",
    "V_MFMA_F32_32X32X4BF16", "V_MFMA_F32_16X16X8BF16",
    "V_MFMA_I32_32X32X8I8", "V_MFMA_I32_16X16X16I8",
    "V_MFMA_F32_32X32X4_XF32", "V_MFMA_F32_16X16X8_XF32",
    "BUFFER_WBINVL1", "BUFFER_WBINVL1_VOL",
    "DS_GWS_INIT", "DS_GWS_SEMA_V", "DS_GWS_SEMA_BR", "DS_GWS_SEMA_P", "DS_GWS_BARRIER",
    "DS_GWS_SEMA_RELEASE_ALL",
    "V_MAC_F32_E32", "V_MAC_F32_E64", "V_MADMK_F32_E32", "V_MADAK_F32_E32",
    "V_MAD_LEGACY_F32_E64", "V_MAD_F32_E64",
]

# Operand facts for operations the reference data has no operand entry for: same as another op's.
LIKE = {
    "V_MAC_F32_E64": "VOP3Op.V_FMAC_F32", "V_MAC_F32": "VOP2Op.V_FMAC_F32", "V_MADMK_F32": "VOP2Op.V_FMAMK_F32",
    "V_MADAK_F32": "VOP2Op.V_FMAAK_F32", "V_MAD_LEGACY_F32": "VOP3Op.V_FMA_F32",
    "V_MAD_F32": "VOP3Op.V_FMA_F32",
    "V_MFMA_I32_32X32X8I8": "VOP3POp.V_MFMA_I32_32X32X4_2B_I8:16",
    "V_MFMA_I32_16X16X16I8": "VOP3POp.V_MFMA_I32_16X16X4_4B_I8:4",
    "V_MFMA_F32_32X32X2BF16": "VOP3POp.V_MFMA_F32_32X32X1_2B_F32",
    "V_MFMA_F32_16X16X2BF16": "VOP3POp.V_MFMA_F32_16X16X1_4B_F32",
    "V_MFMA_F32_4X4X2BF16": "VOP3POp.V_MFMA_F32_4X4X1_16B_F32",
    "V_MFMA_F32_32X32X4BF16": "VOP3POp.V_MFMA_F32_32X32X2_F32",
    "V_MFMA_F32_16X16X8BF16": "VOP3POp.V_MFMA_F32_16X16X4_F32",
    "V_MFMA_F32_16X16X8_XF32": "VOP3POp.V_MFMA_F32_16X16X16_F16",
    "V_MFMA_F32_32X32X4_XF32": "VOP3POp.V_MFMA_F32_32X32X8_F16",
    "V_NOP": None, "V_CLREXCP": None,
}
# DS_GWS_*: data0 only for init / sema_br / barrier (set in ds_operands below).

# Opcodes a target does not have (probe: LLVM 22 decodes them on another target, not on this).
ABSENT = {
    "GFX90A": {
        "DS": [23, 24, 183, 184, 224, 225, 226, 227], "FLAT": [77, 78, 82],
        "GLOBAL": [38, 39, 40, 41, 42, 82, 125, 126], "MUBUF": [82],
        "SCRATCH": [38, 39, 40, 41, 42], "VOP1": [56, 84, 85, 86, 87, 88, 89, 90, 91],
        "VOP3": [376, 404, 405, 406, 407, 408, 409, 410, 411, 520] + list(range(563, 612)) +
                [613, 614, 615, 616, 617, 618, 674, 675, 676, 677, 678, 679, 680, 681],
        "VOP3P": [26, 27, 28, 44, 45, 46, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 67, 70, 71,
                  75, 78, 79, 83, 86, 87, 90, 91, 93, 94, 95, 96, 97, 98, 106] + list(range(112, 128)),
    },
    "GFX940": {
        "DS": [224, 225, 226, 227], "GLOBAL": [125, 126], "MUBUF": [82],
        "VOP1": [88, 89, 90, 91], "VOP2": [22],
        "VOP3": [278, 408, 409, 410, 411] + list(range(563, 612)) +
                [613, 614, 615, 616, 617, 618, 678, 679, 680, 681],
        "VOP3P": [26, 27, 28, 44, 45, 46, 53, 54, 55, 56, 57, 58, 59, 60, 61, 67, 70, 71, 75, 78,
                  79, 83, 84, 85, 90, 91],
    },
    "GFX950": {"VOP3P": [62, 63]},
}

# Opcodes a target maps to another operation than the CDNA4 tables: (Op, LLVM mnemonic).
_G90A_MFMA = {
    64: ("V_MFMA_F32_32X32X1_2B_F32", "v_mfma_f32_32x32x1f32"),
    65: ("V_MFMA_F32_16X16X1_4B_F32", "v_mfma_f32_16x16x1f32"),
    66: ("V_MFMA_F32_4X4X1_16B_F32", "v_mfma_f32_4x4x1f32"),
    68: ("V_MFMA_F32_32X32X2_F32", "v_mfma_f32_32x32x2f32"),
    69: ("V_MFMA_F32_16X16X4_F32", "v_mfma_f32_16x16x4f32"),
    72: ("V_MFMA_F32_32X32X4_2B_F16", "v_mfma_f32_32x32x4f16"),
    73: ("V_MFMA_F32_16X16X4_4B_F16", "v_mfma_f32_16x16x4f16"),
    74: ("V_MFMA_F32_4X4X4_16B_F16", "v_mfma_f32_4x4x4f16"),
    76: ("V_MFMA_F32_32X32X8_F16", "v_mfma_f32_32x32x8f16"),
    77: ("V_MFMA_F32_16X16X16_F16", "v_mfma_f32_16x16x16f16"),
    80: ("V_MFMA_I32_32X32X4_2B_I8", "v_mfma_i32_32x32x4i8"),
    81: ("V_MFMA_I32_16X16X4_4B_I8", "v_mfma_i32_16x16x4i8"),
    82: ("V_MFMA_I32_4X4X4_16B_I8", "v_mfma_i32_4x4x4i8"),
    84: ("V_MFMA_I32_32X32X8I8", "v_mfma_i32_32x32x8i8"),
    85: ("V_MFMA_I32_16X16X16I8", "v_mfma_i32_16x16x16i8"),
    99: ("V_MFMA_F32_32X32X4_2B_BF16", "v_mfma_f32_32x32x4bf16_1k"),
    100: ("V_MFMA_F32_16X16X4_4B_BF16", "v_mfma_f32_16x16x4bf16_1k"),
    101: ("V_MFMA_F32_4X4X4_16B_BF16", "v_mfma_f32_4x4x4bf16_1k"),
    102: ("V_MFMA_F32_32X32X8_BF16", "v_mfma_f32_32x32x8bf16_1k"),
    103: ("V_MFMA_F32_16X16X16_BF16", "v_mfma_f32_16x16x16bf16_1k"),
    104: ("V_MFMA_F32_32X32X2BF16", "v_mfma_f32_32x32x2bf16"),
    105: ("V_MFMA_F32_16X16X2BF16", "v_mfma_f32_16x16x2bf16"),
    107: ("V_MFMA_F32_4X4X2BF16", "v_mfma_f32_4x4x2bf16"),
    108: ("V_MFMA_F32_32X32X4BF16", "v_mfma_f32_32x32x4bf16"),
    109: ("V_MFMA_F32_16X16X8BF16", "v_mfma_f32_16x16x8bf16"),
    110: ("V_MFMA_F64_16X16X4_F64", "v_mfma_f64_16x16x4f64"),
    111: ("V_MFMA_F64_4X4X4_4B_F64", "v_mfma_f64_4x4x4f64"),
}
_GWS = {152: ("DS_GWS_SEMA_RELEASE_ALL", "ds_gws_sema_release_all"),
        153: ("DS_GWS_INIT", "ds_gws_init"), 154: ("DS_GWS_SEMA_V", "ds_gws_sema_v"),
        155: ("DS_GWS_SEMA_BR", "ds_gws_sema_br"), 156: ("DS_GWS_SEMA_P", "ds_gws_sema_p"),
        157: ("DS_GWS_BARRIER", "ds_gws_barrier")}
TARGET_OPS = {
    "GFX90A": {
        "VOP2": {22: ("V_MAC_F32_E32", "v_mac_f32"), 23: ("V_MADMK_F32_E32", "v_madmk_f32"),
                 24: ("V_MADAK_F32_E32", "v_madak_f32")},
        "VOP3": {278: ("V_MAC_F32_E64", "v_mac_f32"),
                 449: ("V_MAD_F32_E64", "v_mad_f32"),
                 448: ("V_MAD_LEGACY_F32_E64", "v_mad_legacy_f32")},
        "VOP3P": _G90A_MFMA,
        "MUBUF": {62: ("BUFFER_WBINVL1", "buffer_wbinvl1"),
                  63: ("BUFFER_WBINVL1_VOL", "buffer_wbinvl1_vol")},
        "DS": _GWS,
    },
    "GFX940": {
        "VOP3P": {62: ("V_MFMA_F32_16X16X8_XF32", "v_mfma_f32_16x16x8_xf32"),
                  63: ("V_MFMA_F32_32X32X4_XF32", "v_mfma_f32_32x32x4_xf32")},
        "DS": _GWS,
    },
    "GFX950": {"DS": _GWS},
}

# LLVM's mnemonic where it differs from the lower-case ISA name (all targets).
SPELLING = {
    "V_MAD_MIX_F32": "v_fma_mix_f32", "V_MAD_MIXLO_F16": "v_fma_mixlo_f16",
    "V_MAD_MIXHI_F16": "v_fma_mixhi_f16", "V_ACCVGPR_READ": "v_accvgpr_read_b32",
    "V_ACCVGPR_WRITE": "v_accvgpr_write_b32",
}

# Family -> (opcode table(s), table size, operand-name slots: dst, sdst, src0, src1, src2).
FAMILIES = {
    "SOP1": (["SOP1Op"], 256, ("sdst", None, "ssrc0", None, None)),
    "SOP2": (["SOP2Op"], 128, ("sdst", None, "ssrc0", "ssrc1", None)),
    "SOPK": (["SOPKOp"], 32, ("sdst", None, None, None, None)),
    "SOPC": (["SOPCOp"], 128, (None, None, "ssrc0", "ssrc1", None)),
    "SOPP": (["SOPPOp"], 128, (None, None, None, None, None)),
    "SMEM": (["SMEMOp"], 256, ("sdata", None, "sbase", None, None)),
    "VOP1": (["VOP1Op"], 256, ("vdst", None, "src0", None, None)),
    "VOP2": (["VOP2Op"], 64, ("vdst", None, "src0", "vsrc1", None)),
    "VOPC": (["VOPCOp"], 256, (None, None, "src0", "vsrc1", None)),
    "VOP3": (["VOP3Op", "VOP3SDOp"], 1024, ("vdst", "sdst", "src0", "src1", "src2")),
    "VOP3P": (["VOP3POp"], 128, ("vdst", None, "src0", "src1", "src2")),
    "DS": (["DSOp"], 256, ("vdst", None, "addr", "data0", "data1")),
    "FLAT": (["FLATOp"], 128, ("vdst", None, "addr", "data", "saddr")),
    "GLOBAL": (["GLOBALOp"], 128, ("vdst", None, "addr", "data", "saddr")),
    "SCRATCH": (["SCRATCHOp"], 128, ("vdst", None, "addr", "data", "saddr")),
    "MUBUF": (["MUBUFOp"], 128, ("vdata", None, "vaddr", "srsrc", None)),
    "MTBUF": (["MTBUFOp"], 16, ("vdata", None, "vaddr", "srsrc", None)),
}

# Number types of sources (for inline constants and literals), as in Decoder.cpp's NumType.
def num_type(fmt, bits):
    f = fmt.replace("FMT_NUM_", "")
    if f in ("F16",): return "kF16"
    if f in ("BF16",): return "kBF16"
    if f in ("F32",): return "kF32"
    if f in ("F64",): return "kF64"
    if f in ("PK2_F16",): return "kPkF16"
    if f in ("PK2_BF16",): return "kPkBF16"
    if f in ("PK2_I16", "PK2_U16", "PK2_B16"): return "kPkI16"
    if f in ("PK2_F32",): return "kPkF32"
    if f in ("I16", "U16", "B16"): return "kI16"
    if bits == 64: return "kI64"
    return "kI32"


def strip(n):
    return re.sub(r"_E(32|64)$", "", n)


def main():
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/isa/cdna4-isa.json")
    data = json.loads(src.read_text())
    opcodes, operands = data["opcodes"], data["operands"]
    names = set(EXTRA)
    for family, table in opcodes.items():
        if family == "HWREG":
            continue
        names.update(table.keys())
    root = Path(__file__).resolve().parents[1]
    lines = ["// Generated by utils/gen_emu_ops.py from the CDNA ISA reference data. Do not edit.",
             "// One line per operation the emulator's instruction model can name."]
    lines += [f"ASMEVO_OP({n})" for n in sorted(names)]
    (root / "libcommon/emu/IsaOps.inc").write_text("\n".join(lines) + "\n")

    # Base names that have a VOP1/VOP2/VOPC form: their VOP3 form prints with _e64.
    has_e32 = {strip(n) for f in ("VOP1Op", "VOP2Op", "VOPCOp") for n in opcodes[f]}
    has_e32 |= {"V_MAC_F32"}

    def operand_entry(tbl, name):
        for key in (f"{tbl}.{name}", f"{tbl}.{strip(name)}"):
            if key in operands:
                return operands[key]
        like = LIKE.get(name) or LIKE.get(strip(name))
        if like:
            key, _, dw = like.partition(":")
            e = dict(operands[key])
            if dw:
                e = {k: dict(v) for k, v in e.items()}
                for k in ("src2", "vdst"):
                    e[k]["bits"] = int(dw) * 32
            return e
        return {}

    rows, row_index = [], {}

    def row(op, llvm, fam, ops):
        slots = FAMILIES[fam][2]
        widths, types = [], []
        for s in slots:
            o = ops.get(s) if s else None
            widths.append(0 if o is None else max(1, (o["bits"] + 31) // 32))
        for s in slots[2:]:
            o = ops.get(s) if s else None
            types.append(num_type(o["format"], o["bits"]) if o else "kI32")
        flags = []
        if fam == "VOP3" and strip(op) in has_e32:
            flags.append("kE64")
        if fam == "VOP3" and "sdst" in ops:
            flags.append("kVop3b")
        if op.startswith(("V_MFMA", "V_SMFMAC")):
            flags.append("kMfma")
        if strip(op) in ("V_FMAMK_F32", "V_MADMK_F32", "V_FMAAK_F32", "V_MADAK_F32", "V_MADMK_F16",
                         "V_MADAK_F16", "V_FMAMK_F16", "V_FMAAK_F16"):
            flags.append("kLitK")
        key = (op, llvm, tuple(widths), tuple(types), tuple(flags))
        if key not in row_index:
            row_index[key] = len(rows)
            rows.append(key)
        return row_index[key]

    maps = {}
    for t in TARGETS:
        for fam, (tbls, size, slots) in FAMILIES.items():
            m = [None] * size
            for tbl in tbls:
                for name, opc in opcodes[tbl].items():
                    if opc >= size or opc in ABSENT.get(t, {}).get(fam, []):
                        continue
                    base = strip(name)
                    ops = operand_entry(tbl, name)
                    m[opc] = row(name, SPELLING.get(base, base.lower()), fam, ops)
            for opc, (op, llvm) in TARGET_OPS.get(t, {}).get(fam, {}).items():
                if op.startswith("DS_GWS"):
                    ops = {"data0": {"bits": 32, "format": "FMT_NUM_B32"}} if op in (
                        "DS_GWS_INIT", "DS_GWS_SEMA_BR", "DS_GWS_BARRIER") else {}
                elif op in ("BUFFER_WBINVL1", "BUFFER_WBINVL1_VOL"):
                    ops = {}
                else:
                    ops = operand_entry(tbls[0], op)
                    if not ops:
                        # Same operation as the CDNA4 one of this name.
                        for tb in tbls:
                            if op in opcodes[tb]:
                                ops = operand_entry(tb, op)
                m[opc] = row(op, llvm, fam, ops)
            maps[(t, fam)] = m

    out = ["// Generated by utils/gen_emu_ops.py from the CDNA ISA reference data and the",
           "// per-target deltas written in the generator. Do not edit. Included by Decoder.cpp.",
           "// kOpInfo: {op, LLVM mnemonic, flags, widths in dwords {dst, sdst, src0, src1, src2},",
           "//           number types {src0, src1, src2}}",
           "static const OpInfo kOpInfo[] = {"]
    for (op, llvm, widths, types, flags) in rows:
        fl = "|".join(flags) if flags else "0"
        out.append(f'  {{Op::{op}, "{llvm}", {fl}, {{{", ".join(map(str, widths))}}}, '
                   f'{{{", ".join(types)}}}}},')
    out.append("};")
    for (t, fam), m in maps.items():
        vals = ["0xffff" if v is None else str(v) for v in m]
        out.append(f"static const uint16_t kMap_{t}_{fam}[{len(m)}] = {{")
        for i in range(0, len(vals), 16):
            out.append("  " + ", ".join(vals[i:i + 16]) + ",")
        out.append("};")
    out.append("static const uint16_t *const kMaps[3][%d] = {" % len(FAMILIES))
    for t in TARGETS:
        out.append("  {" + ", ".join(f"kMap_{t}_{fam}" for fam in FAMILIES) + "},")
    out.append("};")
    out.append("static const uint16_t kMapSize[%d] = {%s};" % (
        len(FAMILIES), ", ".join(str(FAMILIES[f][1]) for f in FAMILIES)))
    (root / "libcommon/emu/IsaTables.inc").write_text("\n".join(out) + "\n")
    print(f"IsaOps.inc: {len(names)} operations; IsaTables.inc: {len(rows)} rows")


if __name__ == "__main__":
    main()
