// Decoding gfx9 CDNA machine code (gfx90a, gfx940/941/942, gfx950) into the emulator's
// instruction model (Inst.h), from the ISA's encoding tables (IsaTables.inc, generated from the
// CDNA ISA reference data), and printing it back in LLVM's assembler syntax (the decoder's
// cross-check against LLVM's disassembler compares those texts).
#pragma once

#include "emu/Gfx.h"
#include "emu/Inst.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace asmevo::emu {

// Decode the instruction at Bytes (Avail bytes readable). Returns false, with a reason in
// *Why, when the words form no instruction the target has (or run past Avail).
bool decodeInst(const uint8_t *Bytes, size_t Avail, Gfx Target, Inst &Out, std::string *Why);

// The assembler mnemonic of a decoded instruction on Target, as LLVM writes it
// ("v_add_f32_e32", "v_mfma_f32_32x32x8f16" on gfx90a, "v_mfma_f32_32x32x8_f16" on gfx942).
std::string mnemonic(const Inst &In, Gfx Target);

// The whole instruction in LLVM's syntax ("v_add_f32_e32 v1, v2, v3"). Pc is the address of
// the instruction (branch targets are printed as LLVM prints them without symbols).
std::string printInst(const Inst &In, Gfx Target, uint64_t Pc);

// v_mac/v_fmac/v_dot*c/v_pk_fmac: ops whose destination is also their accumulator (src[2]).
bool isMacOp(Op O);

// The VGPRs source S (0 = A, 1 = B) of a gfx950 F8F6F4 MFMA spans, which its format field
// decides (cbsz for A, blgp for B): 8 for FP8/BF8, 6 for FP6/BF6, 4 for FP4, 0 for the invalid
// codes 5..7. 0 for any other instruction or source: the ISA tables give those widths.
unsigned f8f6f4SourceRegs(const Inst &In, unsigned S);

} // namespace asmevo::emu
