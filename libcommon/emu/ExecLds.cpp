// LDS (DS encoding): reads/writes, read2/write2 (and st64), atomics, wrxchg2, permute/bpermute,
// swizzle, addtid. Every access goes through ldsAccess (a fault names pc, lane and address).
//
// Addressing (gfx9; no M0 clamp): single-address ops use ADDR + {offset1, offset0}; two-address
// ops use ADDR + offsetN * size (size 4 or 8; times 64 for the st64 forms). Lanes run in lane
// order, so when several lanes write one address the highest lane's value stays, and atomics on
// one address apply in lane order. GDS (gds=1) is not modelled.
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/ExecMemCommon.h"
#include "emu/LaneBlockCopy.h"
#include <cstring>

#include <type_traits>

namespace asmevo::emu {

using namespace memdetail;

namespace {

enum class DsKind : uint8_t {
  Read,
  Write,
  Read2,
  Write2,
  Atomic,
  Wrxchg2,
  Permute,
  Bpermute,
  Swizzle,
  Nop,
  ReadAddTid,
  WriteAddTid,
};
enum class DsShape : uint8_t {
  U8,
  I8,
  U16,
  I16,
  B32,
  U8D16,
  I8D16,
  U8D16Hi,
  I8D16Hi,
  U16D16,
  U16D16Hi,
  B8,
  B8Hi,
  B16,
  B16Hi,
};

struct DsOp {
  DsKind Kind = DsKind::Nop;
  DsShape Shape = DsShape::B32;
  uint8_t N = 1;      // dwords (B32); element dwords for read2/write2/wrxchg2
  unsigned Scale = 4; // read2/write2/wrxchg2 offset unit in bytes
  emu::Rmw Rmw = emu::Rmw::Add;
  bool Is64 = false, Ret = false;
};

DsOp ds(DsKind k, DsShape s = DsShape::B32, unsigned n = 1) {
  DsOp o;
  o.Kind = k;
  o.Shape = s;
  o.N = uint8_t(n);
  return o;
}
DsOp ds2(DsKind k, unsigned n, unsigned Scale) {
  DsOp o;
  o.Kind = k;
  o.N = uint8_t(n);
  o.Scale = Scale;
  return o;
}
DsOp dsa(Rmw r, bool Is64, bool Ret) {
  DsOp o;
  o.Kind = DsKind::Atomic;
  o.Rmw = r;
  o.Is64 = Is64;
  o.Ret = Ret;
  return o;
}

#define ASMEVO_DS_AT(NAME, RMW)                                                                    \
  case Op::DS_##NAME##_U32:                                                                        \
    out = dsa(Rmw::RMW, false, false);                                                             \
    return true;                                                                                   \
  case Op::DS_##NAME##_RTN_U32:                                                                    \
    out = dsa(Rmw::RMW, false, true);                                                              \
    return true;                                                                                   \
  case Op::DS_##NAME##_U64:                                                                        \
    out = dsa(Rmw::RMW, true, false);                                                              \
    return true;                                                                                   \
  case Op::DS_##NAME##_RTN_U64:                                                                    \
    out = dsa(Rmw::RMW, true, true);                                                               \
    return true;
#define ASMEVO_DS_ATB(NAME, RMW)                                                                   \
  case Op::DS_##NAME##_B32:                                                                        \
    out = dsa(Rmw::RMW, false, false);                                                             \
    return true;                                                                                   \
  case Op::DS_##NAME##_RTN_B32:                                                                    \
    out = dsa(Rmw::RMW, false, true);                                                              \
    return true;                                                                                   \
  case Op::DS_##NAME##_B64:                                                                        \
    out = dsa(Rmw::RMW, true, false);                                                              \
    return true;                                                                                   \
  case Op::DS_##NAME##_RTN_B64:                                                                    \
    out = dsa(Rmw::RMW, true, true);                                                               \
    return true;
#define ASMEVO_DS_ATI(NAME, RMW)                                                                   \
  case Op::DS_##NAME##_I32:                                                                        \
    out = dsa(Rmw::RMW, false, false);                                                             \
    return true;                                                                                   \
  case Op::DS_##NAME##_RTN_I32:                                                                    \
    out = dsa(Rmw::RMW, false, true);                                                              \
    return true;                                                                                   \
  case Op::DS_##NAME##_I64:                                                                        \
    out = dsa(Rmw::RMW, true, false);                                                              \
    return true;                                                                                   \
  case Op::DS_##NAME##_RTN_I64:                                                                    \
    out = dsa(Rmw::RMW, true, true);                                                               \
    return true;

bool classifyDs(Op Op, DsOp &out) {
  switch (Op) {
  case Op::DS_NOP:
    out = ds(DsKind::Nop);
    return true;
  case Op::DS_READ_U8:
    out = ds(DsKind::Read, DsShape::U8);
    return true;
  case Op::DS_READ_I8:
    out = ds(DsKind::Read, DsShape::I8);
    return true;
  case Op::DS_READ_U16:
    out = ds(DsKind::Read, DsShape::U16);
    return true;
  case Op::DS_READ_I16:
    out = ds(DsKind::Read, DsShape::I16);
    return true;
  case Op::DS_READ_B32:
    out = ds(DsKind::Read, DsShape::B32, 1);
    return true;
  case Op::DS_READ_B64:
    out = ds(DsKind::Read, DsShape::B32, 2);
    return true;
  case Op::DS_READ_B96:
    out = ds(DsKind::Read, DsShape::B32, 3);
    return true;
  case Op::DS_READ_B128:
    out = ds(DsKind::Read, DsShape::B32, 4);
    return true;
  case Op::DS_READ_U8_D16:
    out = ds(DsKind::Read, DsShape::U8D16);
    return true;
  case Op::DS_READ_U8_D16_HI:
    out = ds(DsKind::Read, DsShape::U8D16Hi);
    return true;
  case Op::DS_READ_I8_D16:
    out = ds(DsKind::Read, DsShape::I8D16);
    return true;
  case Op::DS_READ_I8_D16_HI:
    out = ds(DsKind::Read, DsShape::I8D16Hi);
    return true;
  case Op::DS_READ_U16_D16:
    out = ds(DsKind::Read, DsShape::U16D16);
    return true;
  case Op::DS_READ_U16_D16_HI:
    out = ds(DsKind::Read, DsShape::U16D16Hi);
    return true;
  case Op::DS_WRITE_B8:
    out = ds(DsKind::Write, DsShape::B8);
    return true;
  case Op::DS_WRITE_B8_D16_HI:
    out = ds(DsKind::Write, DsShape::B8Hi);
    return true;
  case Op::DS_WRITE_B16:
    out = ds(DsKind::Write, DsShape::B16);
    return true;
  case Op::DS_WRITE_B16_D16_HI:
    out = ds(DsKind::Write, DsShape::B16Hi);
    return true;
  case Op::DS_WRITE_B32:
    out = ds(DsKind::Write, DsShape::B32, 1);
    return true;
  case Op::DS_WRITE_B64:
    out = ds(DsKind::Write, DsShape::B32, 2);
    return true;
  case Op::DS_WRITE_B96:
    out = ds(DsKind::Write, DsShape::B32, 3);
    return true;
  case Op::DS_WRITE_B128:
    out = ds(DsKind::Write, DsShape::B32, 4);
    return true;
  case Op::DS_READ2_B32:
    out = ds2(DsKind::Read2, 1, 4);
    return true;
  case Op::DS_READ2_B64:
    out = ds2(DsKind::Read2, 2, 8);
    return true;
  case Op::DS_READ2ST64_B32:
    out = ds2(DsKind::Read2, 1, 256);
    return true;
  case Op::DS_READ2ST64_B64:
    out = ds2(DsKind::Read2, 2, 512);
    return true;
  case Op::DS_WRITE2_B32:
    out = ds2(DsKind::Write2, 1, 4);
    return true;
  case Op::DS_WRITE2_B64:
    out = ds2(DsKind::Write2, 2, 8);
    return true;
  case Op::DS_WRITE2ST64_B32:
    out = ds2(DsKind::Write2, 1, 256);
    return true;
  case Op::DS_WRITE2ST64_B64:
    out = ds2(DsKind::Write2, 2, 512);
    return true;
  case Op::DS_WRXCHG2_RTN_B32:
    out = ds2(DsKind::Wrxchg2, 1, 4);
    return true;
  case Op::DS_WRXCHG2_RTN_B64:
    out = ds2(DsKind::Wrxchg2, 2, 8);
    return true;
  case Op::DS_WRXCHG2ST64_RTN_B32:
    out = ds2(DsKind::Wrxchg2, 1, 256);
    return true;
  case Op::DS_WRXCHG2ST64_RTN_B64:
    out = ds2(DsKind::Wrxchg2, 2, 512);
    return true;
  case Op::DS_PERMUTE_B32:
    out = ds(DsKind::Permute);
    return true;
  case Op::DS_BPERMUTE_B32:
    out = ds(DsKind::Bpermute);
    return true;
  case Op::DS_SWIZZLE_B32:
    out = ds(DsKind::Swizzle);
    return true;
  case Op::DS_READ_ADDTID_B32:
    out = ds(DsKind::ReadAddTid);
    return true;
  case Op::DS_WRITE_ADDTID_B32:
    out = ds(DsKind::WriteAddTid);
    return true;
    ASMEVO_DS_AT(ADD, Add)
    ASMEVO_DS_AT(SUB, Sub)
    ASMEVO_DS_AT(RSUB, Rsub)
    ASMEVO_DS_AT(INC, Inc)
    ASMEVO_DS_AT(DEC, Dec)
    ASMEVO_DS_AT(MIN, UMin)
    ASMEVO_DS_AT(MAX, UMax)
    ASMEVO_DS_ATI(MIN, SMin)
    ASMEVO_DS_ATI(MAX, SMax)
    ASMEVO_DS_ATB(AND, And)
    ASMEVO_DS_ATB(OR, Or)
    ASMEVO_DS_ATB(XOR, Xor)
    ASMEVO_DS_ATB(MSKOR, MskOr)
    ASMEVO_DS_ATB(CMPST, CmpSwap)
  case Op::DS_WRXCHG_RTN_B32:
    out = dsa(Rmw::Swap, false, true);
    return true;
  case Op::DS_WRXCHG_RTN_B64:
    out = dsa(Rmw::Swap, true, true);
    return true;
  case Op::DS_CMPST_F32:
    out = dsa(Rmw::CmpSwapF32, false, false);
    return true;
  case Op::DS_CMPST_RTN_F32:
    out = dsa(Rmw::CmpSwapF32, false, true);
    return true;
  case Op::DS_CMPST_F64:
    out = dsa(Rmw::CmpSwapF64, true, false);
    return true;
  case Op::DS_CMPST_RTN_F64:
    out = dsa(Rmw::CmpSwapF64, true, true);
    return true;
  case Op::DS_MIN_F32:
    out = dsa(Rmw::MinF32, false, false);
    return true;
  case Op::DS_MIN_RTN_F32:
    out = dsa(Rmw::MinF32, false, true);
    return true;
  case Op::DS_MAX_F32:
    out = dsa(Rmw::MaxF32, false, false);
    return true;
  case Op::DS_MAX_RTN_F32:
    out = dsa(Rmw::MaxF32, false, true);
    return true;
  case Op::DS_MIN_F64:
    out = dsa(Rmw::MinF64, true, false);
    return true;
  case Op::DS_MIN_RTN_F64:
    out = dsa(Rmw::MinF64, true, true);
    return true;
  case Op::DS_MAX_F64:
    out = dsa(Rmw::MaxF64, true, false);
    return true;
  case Op::DS_MAX_RTN_F64:
    out = dsa(Rmw::MaxF64, true, true);
    return true;
  case Op::DS_ADD_F32:
    out = dsa(Rmw::AddF32, false, false);
    return true;
  case Op::DS_ADD_RTN_F32:
    out = dsa(Rmw::AddF32, false, true);
    return true;
  case Op::DS_ADD_F64:
    out = dsa(Rmw::AddF64, true, false);
    return true;
  case Op::DS_ADD_RTN_F64:
    out = dsa(Rmw::AddF64, true, true);
    return true;
  case Op::DS_PK_ADD_F16:
    out = dsa(Rmw::PkAddF16, false, false);
    return true;
  case Op::DS_PK_ADD_RTN_F16:
    out = dsa(Rmw::PkAddF16, false, true);
    return true;
  case Op::DS_PK_ADD_BF16:
    out = dsa(Rmw::PkAddBf16, false, false);
    return true;
  case Op::DS_PK_ADD_RTN_BF16:
    out = dsa(Rmw::PkAddBf16, false, true);
    return true;
  case Op::DS_WRAP_RTN_B32:
    out = dsa(Rmw::Wrap, false, true);
    return true;
  default:
    return false;
  }
}
#undef ASMEVO_DS_AT
#undef ASMEVO_DS_ATB
#undef ASMEVO_DS_ATI

unsigned dsShapeBytes(DsShape s, unsigned n) {
  switch (s) {
  case DsShape::U8:
  case DsShape::I8:
  case DsShape::U8D16:
  case DsShape::I8D16:
  case DsShape::U8D16Hi:
  case DsShape::I8D16Hi:
  case DsShape::B8:
  case DsShape::B8Hi:
    return 1;
  case DsShape::U16:
  case DsShape::I16:
  case DsShape::U16D16:
  case DsShape::U16D16Hi:
  case DsShape::B16:
  case DsShape::B16Hi:
    return 2;
  case DsShape::B32:
    return 4 * n;
  }
  return 4;
}

// The lane-select permutation of ds_swizzle_b32: the source lane of lane i.
unsigned swizzleSource(unsigned Offset, unsigned i) {
  if (Offset >= 0xe000) { // FFT
    unsigned Mask = Offset & 0x1f;
    unsigned x = i & 0x1f, Rev = 0;
    for (unsigned b = 0; b < 5; ++b)
      Rev |= ((x >> b) & 1u) << (4 - b);
    unsigned j = (Rev >> __builtin_popcount(Mask)) | (i & Mask);
    return (j & 0x1f) | (i & 0x20);
  }
  if (Offset >= 0xc000) { // rotate within 32 lanes
    unsigned Mask = Offset & 0x1f;
    unsigned Rot = (Offset >> 5) & 0x1f;
    if (Offset & 0x400)
      Rot = 32 - Rot;
    unsigned j = (i & Mask) | ((i + Rot) & ~Mask);
    return (j & 0x1f) | (i & 0x20);
  }
  if (Offset & 0x8000) // quad permute
    return (i & ~3u) | ((Offset >> ((i & 3) * 2)) & 3u);
  unsigned AndMask = Offset & 0x1f, OrMask = (Offset >> 5) & 0x1f, XorMask = (Offset >> 10) & 0x1f;
  return ((((i & 0x1f) & AndMask) | OrMask) ^ XorMask) | (i & 0x20);
}

// No hooks on (strict checks, trace) and every active lane's `bytes` bytes at addr + offset16
// inside the workgroup's LDS: then a lane's bytes are at lds.data() + addr + offset16, with no
// per-lane check or call (ldsAccess is what checks, reports and traces).
// Hi (when given) is set to the highest active lane's address.
bool ldsDirect(const ExecCtx &c, const uint32_t *Addr, unsigned Offset16, unsigned Bytes,
               uint64_t Exec, uint32_t *HiOut = nullptr) {
  if (c.Strict || c.Trace)
    return false;
  uint32_t Hi = 0;
  if (Exec == ~0ull) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      Hi = Addr[l] > Hi ? Addr[l] : Hi;
  } else {
    forEachLane(Exec, [&](unsigned l) { Hi = Addr[l] > Hi ? Addr[l] : Hi; });
  }
  if (HiOut)
    *HiOut = Hi;
  return uint64_t(Hi) + Offset16 + Bytes <= c.Wg.Lds.size();
}

// ds_read_b32..b128 / ds_write_b32..b128 when ldsDirect holds (lds = LDS + offset16): each
// lane's n dwords move between lds + addr and the n rows from unified index reg.
template <bool Load>
void ldsCopyDwords(WaveState &w, uint8_t *Lds, const uint32_t *Addr, unsigned n, unsigned Reg,
                   uint64_t Exec) {
  uint32_t *Rows[4];
  dwordRows(w, uint16_t(kVgprBase + Reg), n, Rows);
  if (Exec == ~0ull) {
    if (copyPackedLanes(Load, Lds + Addr[0], Addr, n, Rows))
      return;
    if constexpr (Load) {
      if (n == 2) // ds_read_b64 with lanes not 8 bytes apart: a gather
        return gatherLaneDwordPairs(Lds, Addr, Rows[0], Rows[1]);
    }
    // Every lane, n known at compile time: one unrolled copy per lane, no mask scan.
    auto All = [&](auto Nc) {
      for (unsigned l = 0; l < kWaveSize; ++l)
        copyLaneDwords<Load>(Lds + Addr[l], Rows, decltype(Nc)::value, l);
    };
    switch (n) {
    case 1:
      return All(std::integral_constant<unsigned, 1>{});
    case 2:
      return All(std::integral_constant<unsigned, 2>{});
    case 3:
      return All(std::integral_constant<unsigned, 3>{});
    default:
      return All(std::integral_constant<unsigned, 4>{});
    }
  }
  forEachLane(Exec, [&](unsigned l) { copyLaneDwords<Load>(Lds + Addr[l], Rows, n, l); });
}

} // namespace

bool execLds(ExecCtx &c, const Inst &In) {
  if (In.Gds)
    return false;
  if (execLdsTransposeRead(c, In))
    return true;
  DsOp m;
  if (!classifyDs(In.Operation, m))
    return false;
  WaveState &w = c.W;
  const uint64_t Exec = w.exec();
  const unsigned Offset16 = unsigned(In.Offset0) | (unsigned(In.Offset1) << 8);
  const char *What = opNameLower(In.Operation);
  // Operands each kind needs (a decoder gap is reported, not dereferenced).
  // ds_swizzle_b32 takes its source in the ADDR field (there is no address).
  const bool NeedAddr =
      m.Kind != DsKind::Nop && m.Kind != DsKind::ReadAddTid && m.Kind != DsKind::WriteAddTid;
  const bool NeedData = m.Kind != DsKind::Nop && m.Kind != DsKind::Read &&
                        m.Kind != DsKind::Read2 && m.Kind != DsKind::ReadAddTid &&
                        m.Kind != DsKind::Swizzle;
  const bool NeedDst = m.Kind == DsKind::Read || m.Kind == DsKind::Read2 ||
                       m.Kind == DsKind::ReadAddTid || m.Kind == DsKind::Permute ||
                       m.Kind == DsKind::Bpermute || m.Kind == DsKind::Swizzle;
  if ((NeedAddr && In.Addr == kNoOperand) || (NeedData && In.Data0 == kNoOperand) ||
      (NeedDst && In.Dst == kNoOperand) ||
      ((m.Kind == DsKind::Write2 || m.Kind == DsKind::Wrxchg2) && In.Data1 == kNoOperand))
    return false;

  switch (m.Kind) {
  case DsKind::Nop:
    return true;

  case DsKind::Permute:
  case DsKind::Bpermute:
  case DsKind::Swizzle: {
    const uint32_t *Data = w.vrowOf(m.Kind == DsKind::Swizzle ? In.Addr : In.Data0);
    uint32_t Tmp[kWaveSize] = {};
    if (m.Kind == DsKind::Permute) {
      const uint32_t *a = w.vrowOf(In.Addr);
      forEachLane(Exec, [&](unsigned i) { Tmp[((a[i] + Offset16) / 4u) % 64u] = Data[i]; });
    } else if (m.Kind == DsKind::Bpermute) {
      const uint32_t *a = w.vrowOf(In.Addr);
      forEachLane(Exec, [&](unsigned i) {
        unsigned Src = ((a[i] + Offset16) / 4u) % 64u;
        Tmp[i] = (Exec >> Src) & 1u ? Data[Src] : 0u;
      });
    } else {
      forEachLane(Exec, [&](unsigned i) {
        unsigned Src = swizzleSource(Offset16, i);
        Tmp[i] = (Exec >> Src) & 1u ? Data[Src] : 0u;
      });
    }
    uint32_t *d = w.vrowOf(In.Dst);
    forEachLane(Exec, [&](unsigned i) { d[i] = Tmp[i]; });
    return true;
  }

  case DsKind::ReadAddTid:
  case DsKind::WriteAddTid: {
    const uint64_t Base = uint64_t(Offset16) + (w.S[kM0] & 0xffffu);
    if (m.Kind == DsKind::ReadAddTid) {
      uint32_t *d = w.vrowOf(In.Dst);
      forEachLane(
          Exec, [&](unsigned i) { d[i] = load32(ldsAccess(c, Base + 4ull * i, 4, int(i), What)); });
    } else {
      const uint32_t *s = w.vrowOf(In.Data0);
      forEachLane(
          Exec, [&](unsigned i) { store32(ldsAccess(c, Base + 4ull * i, 4, int(i), What), s[i]); });
    }
    return true;
  }

  default:
    break;
  }

  const uint32_t *Addr = w.vrowOf(In.Addr);

  switch (m.Kind) {
  case DsKind::Read: {
    const unsigned Bytes = dsShapeBytes(m.Shape, m.N);
    const unsigned r = vectorIndex(In.Dst);
    uint32_t Hi = 0;
    uint8_t *const Direct =
        ldsDirect(c, Addr, Offset16, Bytes, Exec, &Hi) ? c.Wg.Lds.data() + Offset16 : nullptr;
    if (Direct && m.Shape == DsShape::B32 && r + m.N <= kNumVectorRegs) {
      ldsCopyDwords<true>(w, Direct, Addr, m.N, r, Exec);
      return true;
    }
    // Every lane, and every lane's whole dword inside the LDS (a 1- or 2-byte read near its
    // end is not): the sub-dword shapes gather each lane's dword at once and take their bytes
    // from it (little-endian, as the LDS holds them).
    const bool Gather =
        Direct && Exec == ~0ull && Bytes < 4 && uint64_t(Hi) + Offset16 + 4 <= c.Wg.Lds.size();
    // One lane loop per shape (the shape decided once): f(p, d) is the first destination
    // dword's new value from the lane's LDS bytes p and its old value d (the D16 forms keep
    // the other half).
    auto At = [&](unsigned i) -> const uint8_t * { // lane i's LDS bytes
      return Direct ? Direct + Addr[i]
                    : ldsAccess(c, uint64_t(Addr[i]) + Offset16, Bytes, int(i), What);
    };
    auto Lanes = [&](auto f) {
      uint32_t *Dr = w.vrow(r);
      if (Gather) {
        uint32_t Word[kWaveSize];
        gatherLaneWords(Direct, Addr, Word);
        for (unsigned i = 0; i < kWaveSize; ++i)
          Dr[i] = f(reinterpret_cast<const uint8_t *>(Word + i), Dr[i]);
        return;
      }
      if (Direct && Exec == ~0ull) { // every lane in LDS: a plain loop, no mask scan
        for (unsigned i = 0; i < kWaveSize; ++i)
          Dr[i] = f(Direct + Addr[i], Dr[i]);
        return;
      }
      forEachLane(Exec, [&](unsigned i) { Dr[i] = f(At(i), Dr[i]); });
    };
    auto U16 = [](const uint8_t *p) { // little-endian, as load32
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    };
    auto s8 = [](const uint8_t *p) { return uint16_t(int16_t(int8_t(p[0]))); };
    switch (m.Shape) {
    case DsShape::U8:
      Lanes([](const uint8_t *p, uint32_t) { return uint32_t(p[0]); });
      break;
    case DsShape::I8:
      Lanes([](const uint8_t *p, uint32_t) { return uint32_t(int32_t(int8_t(p[0]))); });
      break;
    case DsShape::U16:
      Lanes([&](const uint8_t *p, uint32_t) { return uint32_t(U16(p)); });
      break;
    case DsShape::I16:
      Lanes([&](const uint8_t *p, uint32_t) { return uint32_t(int32_t(int16_t(U16(p)))); });
      break;
    case DsShape::B32:
      forEachLane(Exec, [&](unsigned i) {
        const uint8_t *p = At(i);
        for (unsigned k = 0; k < m.N; ++k)
          w.vrow(r + k)[i] = load32(p + 4 * k);
      });
      break;
    case DsShape::U8D16:
      Lanes([](const uint8_t *p, uint32_t d) { return (d & 0xffff0000u) | p[0]; });
      break;
    case DsShape::I8D16:
      Lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffff0000u) | s8(p); });
      break;
    case DsShape::U8D16Hi:
      Lanes([](const uint8_t *p, uint32_t d) { return (d & 0xffffu) | (uint32_t(p[0]) << 16); });
      break;
    case DsShape::I8D16Hi:
      Lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffffu) | (uint32_t(s8(p)) << 16); });
      break;
    case DsShape::U16D16:
      Lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffff0000u) | U16(p); });
      break;
    case DsShape::U16D16Hi:
      Lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffffu) | (uint32_t(U16(p)) << 16); });
      break;
    default:
      break;
    }
    return true;
  }
  case DsKind::Write: {
    const unsigned Bytes = dsShapeBytes(m.Shape, m.N);
    const unsigned r = vectorIndex(In.Data0);
    uint8_t *const Direct =
        ldsDirect(c, Addr, Offset16, Bytes, Exec) ? c.Wg.Lds.data() + Offset16 : nullptr;
    if (Direct && m.Shape == DsShape::B32 && r + m.N <= kNumVectorRegs) {
      ldsCopyDwords<false>(w, Direct, Addr, m.N, r, Exec);
      return true;
    }
    forEachLane(Exec, [&](unsigned i) {
      uint8_t *p = Direct ? Direct + Addr[i]
                          : ldsAccess(c, uint64_t(Addr[i]) + Offset16, Bytes, int(i), What);
      uint32_t v = w.vrow(r)[i];
      switch (m.Shape) {
      case DsShape::B8:
        p[0] = uint8_t(v);
        break;
      case DsShape::B8Hi:
        p[0] = uint8_t(v >> 16);
        break;
      case DsShape::B16:
        p[0] = uint8_t(v);
        p[1] = uint8_t(v >> 8);
        break;
      case DsShape::B16Hi:
        p[0] = uint8_t(v >> 16);
        p[1] = uint8_t(v >> 24);
        break;
      case DsShape::B32:
        for (unsigned k = 0; k < m.N; ++k)
          store32(p + 4 * k, w.vrow(r + k)[i]);
        break;
      default:
        break;
      }
    });
    return true;
  }
  case DsKind::Read2:
  case DsKind::Write2:
  case DsKind::Wrxchg2: {
    const unsigned Bytes = 4u * m.N;
    const uint64_t o0 = uint64_t(In.Offset0) * m.Scale, o1 = uint64_t(In.Offset1) * m.Scale;
    const unsigned Dr = In.Dst != kNoOperand ? vectorIndex(In.Dst) : 0;
    const unsigned d0 = In.Data0 != kNoOperand ? vectorIndex(In.Data0) : 0;
    const unsigned d1 = In.Data1 != kNoOperand ? vectorIndex(In.Data1) : 0;
    forEachLane(Exec, [&](unsigned i) {
      uint8_t *p0 = ldsAccess(c, uint64_t(Addr[i]) + o0, Bytes, int(i), What);
      uint8_t *p1 = ldsAccess(c, uint64_t(Addr[i]) + o1, Bytes, int(i), What);
      if (m.Kind == DsKind::Read2) {
        for (unsigned k = 0; k < m.N; ++k) {
          w.vrow(Dr + k)[i] = load32(p0 + 4 * k);
          w.vrow(Dr + m.N + k)[i] = load32(p1 + 4 * k);
        }
        return;
      }
      // wrxchg2 reads both locations before writing either.
      uint32_t Old[4] = {0, 0, 0, 0};
      if (m.Kind == DsKind::Wrxchg2)
        for (unsigned k = 0; k < m.N; ++k) {
          Old[k] = load32(p0 + 4 * k);
          Old[m.N + k] = load32(p1 + 4 * k);
        }
      for (unsigned k = 0; k < m.N; ++k)
        store32(p0 + 4 * k, w.vrow(d0 + k)[i]);
      for (unsigned k = 0; k < m.N; ++k)
        store32(p1 + 4 * k, w.vrow(d1 + k)[i]);
      if (m.Kind == DsKind::Wrxchg2 && In.Dst != kNoOperand)
        for (unsigned k = 0; k < 2u * m.N; ++k)
          w.vrow(Dr + k)[i] = Old[k];
    });
    return true;
  }
  case DsKind::Atomic: {
    const bool Ret = m.Ret && In.Dst != kNoOperand;
    const unsigned d0 = vectorIndex(In.Data0);
    const bool Two = m.Rmw == Rmw::CmpSwap || m.Rmw == Rmw::CmpSwapF32 ||
                     m.Rmw == Rmw::CmpSwapF64 || m.Rmw == Rmw::MskOr || m.Rmw == Rmw::Wrap;
    if (Two && In.Data1 == kNoOperand)
      return false;
    const unsigned d1 = Two ? vectorIndex(In.Data1) : 0;
    // For cmpst the compare value is DATA (data0) and the new value DATA2 (data1).
    const bool Cmp = m.Rmw == Rmw::CmpSwap || m.Rmw == Rmw::CmpSwapF32 || m.Rmw == Rmw::CmpSwapF64;
    forEachLane(Exec, [&](unsigned i) {
      uint8_t *p = ldsAccess(c, uint64_t(Addr[i]) + Offset16, m.Is64 ? 8 : 4, int(i), What);
      if (!m.Is64) {
        uint32_t a = w.vrow(d0)[i], b = Two ? w.vrow(d1)[i] : 0;
        uint32_t Old = load32(p);
        store32(p, Cmp ? rmw32(m.Rmw, Old, b, a) : rmw32(m.Rmw, Old, a, b));
        if (Ret)
          w.vrowOf(In.Dst)[i] = Old;
      } else {
        uint64_t a = w.vrow(d0)[i] | (uint64_t(w.vrow(d0 + 1)[i]) << 32);
        uint64_t b = Two ? (w.vrow(d1)[i] | (uint64_t(w.vrow(d1 + 1)[i]) << 32)) : 0;
        uint64_t Old = load64(p);
        store64(p, Cmp ? rmw64(m.Rmw, Old, b, a) : rmw64(m.Rmw, Old, a, b));
        if (Ret)
          writeVector64(w, In.Dst, i, Old);
      }
    });
    return true;
  }
  default:
    return false;
  }
}

} // namespace asmevo::emu
