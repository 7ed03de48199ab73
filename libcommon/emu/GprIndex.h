// VGPR indexing mode (s_set_gpr_idx_on / _off / _idx / _mode): while MODE.GPR_IDX_EN is set, a
// VALU instruction's VGPR operands in the slots M0[15:12] enables (bit 12 src0, 13 src1, 14
// src2, 15 dst) name v[N + M0[7:0]] instead of v[N]. SGPRs, constants and literals in those
// slots are unchanged. The accumulating ops (v_mac, v_fmac, v_dot*c, v_pk_fmac) read their
// implicit src2 through the dst bit, and v_madmk/v_fmamk's VGPR second source through the src2
// bit (CDNA3/CDNA4 ISA guides, section 6.6, "VGPR indexing").
//
// Not emulated, with the reason: an AGPR in an indexed slot (the guides do not say whether the
// index applies to AGPRs), and an index past v255 (the guides call it illegal).
#pragma once

#include "emu/Gfx.h"
#include "emu/Inst.h"

#include <string>

namespace asmevo::emu {

// Whether indexing applies to In at all (a VALU instruction).
bool gprIndexApplies(const Inst &In);

// In with M0's index applied to its enabled VGPR operands. False, with the reason in Why, when
// the result is not defined by the documents.
bool applyGprIndex(const Inst &In, uint32_t M0, Inst &Out, std::string &Why);

} // namespace asmevo::emu
