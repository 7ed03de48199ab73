// DPP16 lane sharing on the targets the emulator runs (gfx90a, gfx940/941/942, gfx950; wave64):
// which dpp_ctrl values are defined and which lane each lane reads under each.
//
// Sources: LLVM's AMDGPUModifierSyntax (the dpp32_ctrl table for gfx9 with GFX90A's additions,
// and dpp64_ctrl), whose definitions are
//   quad_perm:[a,b,c,d] 0x000-0x0ff  lane 4q+i reads lane 4q + sel[i]
//   row_shl:1-15        0x101-0x10f  lane reads lane + n of its row (none past the row's end)
//   row_shr:1-15        0x111-0x11f  lane reads lane - n of its row (none before its start)
//   row_ror:1-15        0x121-0x12f  rotate right within the row
//   wave_shl:1 0x130, wave_rol:1 0x134, wave_shr:1 0x138, wave_ror:1 0x13c (whole wave, by 1)
//   row_mirror 0x140, row_half_mirror 0x141 (within 16 and within 8 lanes)
//   row_bcast:15 0x142  lane 15 of each row to the next row; row_bcast:31 0x143  lane 31 to
//                       rows 2 and 3
//   row_newbcast:0-15   0x150-0x15f  "broadcast a thread within a row to the whole row": every
//                       lane of a row reads lane n of that row (GFX90A and later; LLVM prints
//                       0x150 as row_newbcast:0 on gfx90a/gfx942/gfx950, the same encoding
//                       GFX10 calls row_share)
// and LLVM's validator (AMDGPUAsmParser, AMDGPUBaseInfo's isLegalDPALU_DPPControl): a DPP op
// with a 64-bit operand ("DP ALU DPP") takes row_newbcast only. Every other value is reserved.
// The three targets define the same set.
#pragma once

#include "emu/Gfx.h"

#include <cstdint>

namespace asmevo::emu {

constexpr unsigned kDppControls = 0x200; // the 9-bit dpp_ctrl field

// Whether the ISA defines control Ctrl (< kDppControls) on target G.
bool dppControlDefined(unsigned Ctrl, Gfx G);
inline bool isRowNewBcast(unsigned Ctrl) { return Ctrl >= 0x150 && Ctrl <= 0x15f; }

// The lane each of the 64 lanes reads under a defined control (-1: no such lane, before EXEC
// and the row/bank masks), and the lanes that have one; null / 0 for an undefined control.
const int8_t *dppSourceLanes(unsigned Ctrl);
uint64_t dppLanesWithSource(unsigned Ctrl);

} // namespace asmevo::emu
