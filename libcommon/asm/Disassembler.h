// Decoding a range of machine code into instructions with LLVM's AMDGPU disassembler, and the
// control-flow and PC-relative facts recovery needs: branch targets and s_getpc_b64-based
// address computations (s_getpc_b64 + s_add_u32/s_addc_u32 with literals).
#pragma once

#include "asm/McTarget.h"

#include "llvm/MC/MCInst.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct DecodedInsn {
  uint64_t Addr = 0;
  unsigned Size = 4;
  bool Valid = false; // false: the word did not decode (kept as raw data)
  llvm::MCInst Inst;
  llvm::StringRef Bytes;                // the instruction's bytes
  std::string Mnemonic;                 // "s_add_u32" (empty when !Valid)
  std::optional<uint64_t> BranchTarget; // direct branch/call target
  bool Terminates = false;              // no fall-through (s_endpgm, s_branch, s_setpc_b64, ...)
};

// Decode [Addr, Addr + Bytes.size()). Undecodable words become !Valid 4-byte entries.
std::vector<DecodedInsn> decodeRange(const McTarget &M, llvm::StringRef Bytes, uint64_t Addr);

// The instruction text as LLVM prints it (no leading tab, no comment).
std::string printInsn(const McTarget &M, const DecodedInsn &I);

// Whether LLVM's encoder turns the decoded instruction back into its own bytes. False where
// decoding lost bits (e.g. op_sel bits of gfx950's v_mfma_ld_scale_b32 that the disassembler
// drops): such an instruction cannot be written as text without changing the code.
bool reencodesExactly(const McTarget &M, const DecodedInsn &I);

// An address computed PC-relatively: s_getpc_b64 s[N:N+1]; s_add_u32 x, sN, lit_lo;
// s_addc_u32 y, sN+1, lit_hi. Target = address after s_getpc_b64 + (lit_hi:lit_lo).
struct PcRelRef {
  size_t GetPc = 0, Add = 0, Addc = 0;            // indices into the decoded instructions
  unsigned AddLitOperand = 2, AddcLitOperand = 2; // printed operand index of the literal
  uint64_t Return = 0;                            // address after s_getpc_b64
  uint64_t Target = 0;
};

std::vector<PcRelRef> findPcRelativeRefs(const McTarget &M, const std::vector<DecodedInsn> &Is);

} // namespace asmevo
