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
DsOp ds2(DsKind k, unsigned n, unsigned scale) {
  DsOp o;
  o.Kind = k;
  o.N = uint8_t(n);
  o.Scale = scale;
  return o;
}
DsOp dsa(Rmw r, bool is64, bool ret) {
  DsOp o;
  o.Kind = DsKind::Atomic;
  o.Rmw = r;
  o.Is64 = is64;
  o.Ret = ret;
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

bool classifyDs(Op op, DsOp &out) {
  switch (op) {
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
unsigned swizzleSource(unsigned offset, unsigned i) {
  if (offset >= 0xe000) { // FFT
    unsigned mask = offset & 0x1f;
    unsigned x = i & 0x1f, rev = 0;
    for (unsigned b = 0; b < 5; ++b)
      rev |= ((x >> b) & 1u) << (4 - b);
    unsigned j = (rev >> __builtin_popcount(mask)) | (i & mask);
    return (j & 0x1f) | (i & 0x20);
  }
  if (offset >= 0xc000) { // rotate within 32 lanes
    unsigned mask = offset & 0x1f;
    unsigned rot = (offset >> 5) & 0x1f;
    if (offset & 0x400)
      rot = 32 - rot;
    unsigned j = (i & mask) | ((i + rot) & ~mask);
    return (j & 0x1f) | (i & 0x20);
  }
  if (offset & 0x8000) // quad permute
    return (i & ~3u) | ((offset >> ((i & 3) * 2)) & 3u);
  unsigned andMask = offset & 0x1f, orMask = (offset >> 5) & 0x1f, xorMask = (offset >> 10) & 0x1f;
  return ((((i & 0x1f) & andMask) | orMask) ^ xorMask) | (i & 0x20);
}

// No hooks on (strict checks, trace) and every active lane's `bytes` bytes at addr + offset16
// inside the workgroup's LDS: then a lane's bytes are at lds.data() + addr + offset16, with no
// per-lane check or call (ldsAccess is what checks, reports and traces).
bool ldsDirect(const ExecCtx &c, const uint32_t *addr, unsigned offset16, unsigned bytes,
               uint64_t exec) {
  if (c.Strict || c.Trace)
    return false;
  uint32_t hi = 0;
  if (exec == ~0ull) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      hi = addr[l] > hi ? addr[l] : hi;
  } else {
    forEachLane(exec, [&](unsigned l) { hi = addr[l] > hi ? addr[l] : hi; });
  }
  return uint64_t(hi) + offset16 + bytes <= c.Wg.Lds.size();
}

// ds_read_b32..b128 / ds_write_b32..b128 when ldsDirect holds (lds = LDS + offset16): each
// lane's n dwords move between lds + addr and the n rows from unified index reg.
template <bool Load>
void ldsCopyDwords(WaveState &w, uint8_t *lds, const uint32_t *addr, unsigned n, unsigned reg,
                   uint64_t exec) {
  uint32_t *rows[4];
  dwordRows(w, uint16_t(kVgprBase + reg), n, rows);
  if (exec == ~0ull) {
    if (copyPackedLanes(Load, lds + addr[0], addr, n, rows))
      return;
    // Every lane, n known at compile time: one unrolled copy per lane, no mask scan.
    auto all = [&](auto nc) {
      for (unsigned l = 0; l < kWaveSize; ++l)
        copyLaneDwords<Load>(lds + addr[l], rows, decltype(nc)::value, l);
    };
    switch (n) {
    case 1:
      return all(std::integral_constant<unsigned, 1>{});
    case 2:
      return all(std::integral_constant<unsigned, 2>{});
    case 3:
      return all(std::integral_constant<unsigned, 3>{});
    default:
      return all(std::integral_constant<unsigned, 4>{});
    }
  }
  forEachLane(exec, [&](unsigned l) { copyLaneDwords<Load>(lds + addr[l], rows, n, l); });
}

} // namespace

bool execLds(ExecCtx &c, const Inst &in) {
  if (in.Gds)
    return false;
  if (execLdsTransposeRead(c, in))
    return true;
  DsOp m;
  if (!classifyDs(in.Operation, m))
    return false;
  WaveState &w = c.W;
  const uint64_t exec = w.exec();
  const unsigned offset16 = unsigned(in.Offset0) | (unsigned(in.Offset1) << 8);
  const char *what = opNameLower(in.Operation);
  // Operands each kind needs (a decoder gap is reported, not dereferenced).
  // ds_swizzle_b32 takes its source in the ADDR field (there is no address).
  const bool needAddr =
      m.Kind != DsKind::Nop && m.Kind != DsKind::ReadAddTid && m.Kind != DsKind::WriteAddTid;
  const bool needData = m.Kind != DsKind::Nop && m.Kind != DsKind::Read &&
                        m.Kind != DsKind::Read2 && m.Kind != DsKind::ReadAddTid &&
                        m.Kind != DsKind::Swizzle;
  const bool needDst = m.Kind == DsKind::Read || m.Kind == DsKind::Read2 ||
                       m.Kind == DsKind::ReadAddTid || m.Kind == DsKind::Permute ||
                       m.Kind == DsKind::Bpermute || m.Kind == DsKind::Swizzle;
  if ((needAddr && in.Addr == kNoOperand) || (needData && in.Data0 == kNoOperand) ||
      (needDst && in.Dst == kNoOperand) ||
      ((m.Kind == DsKind::Write2 || m.Kind == DsKind::Wrxchg2) && in.Data1 == kNoOperand))
    return false;

  switch (m.Kind) {
  case DsKind::Nop:
    return true;

  case DsKind::Permute:
  case DsKind::Bpermute:
  case DsKind::Swizzle: {
    const uint32_t *data = w.vrowOf(m.Kind == DsKind::Swizzle ? in.Addr : in.Data0);
    uint32_t tmp[kWaveSize] = {};
    if (m.Kind == DsKind::Permute) {
      const uint32_t *a = w.vrowOf(in.Addr);
      forEachLane(exec, [&](unsigned i) { tmp[((a[i] + offset16) / 4u) % 64u] = data[i]; });
    } else if (m.Kind == DsKind::Bpermute) {
      const uint32_t *a = w.vrowOf(in.Addr);
      forEachLane(exec, [&](unsigned i) {
        unsigned src = ((a[i] + offset16) / 4u) % 64u;
        tmp[i] = (exec >> src) & 1u ? data[src] : 0u;
      });
    } else {
      forEachLane(exec, [&](unsigned i) {
        unsigned src = swizzleSource(offset16, i);
        tmp[i] = (exec >> src) & 1u ? data[src] : 0u;
      });
    }
    uint32_t *d = w.vrowOf(in.Dst);
    forEachLane(exec, [&](unsigned i) { d[i] = tmp[i]; });
    return true;
  }

  case DsKind::ReadAddTid:
  case DsKind::WriteAddTid: {
    const uint64_t base = uint64_t(offset16) + (w.S[kM0] & 0xffffu);
    if (m.Kind == DsKind::ReadAddTid) {
      uint32_t *d = w.vrowOf(in.Dst);
      forEachLane(
          exec, [&](unsigned i) { d[i] = load32(ldsAccess(c, base + 4ull * i, 4, int(i), what)); });
    } else {
      const uint32_t *s = w.vrowOf(in.Data0);
      forEachLane(
          exec, [&](unsigned i) { store32(ldsAccess(c, base + 4ull * i, 4, int(i), what), s[i]); });
    }
    return true;
  }

  default:
    break;
  }

  const uint32_t *addr = w.vrowOf(in.Addr);

  switch (m.Kind) {
  case DsKind::Read: {
    const unsigned bytes = dsShapeBytes(m.Shape, m.N);
    const unsigned r = vectorIndex(in.Dst);
    uint8_t *const direct =
        ldsDirect(c, addr, offset16, bytes, exec) ? c.Wg.Lds.data() + offset16 : nullptr;
    if (direct && m.Shape == DsShape::B32 && r + m.N <= kNumVectorRegs) {
      ldsCopyDwords<true>(w, direct, addr, m.N, r, exec);
      return true;
    }
    // One lane loop per shape (the shape decided once): f(p, d) is the first destination
    // dword's new value from the lane's LDS bytes p and its old value d (the D16 forms keep
    // the other half).
    auto at = [&](unsigned i) -> const uint8_t * { // lane i's LDS bytes
      return direct ? direct + addr[i]
                    : ldsAccess(c, uint64_t(addr[i]) + offset16, bytes, int(i), what);
    };
    auto lanes = [&](auto f) {
      uint32_t *dr = w.vrow(r);
      if (direct && exec == ~0ull) { // every lane in LDS: a plain loop, no mask scan
        for (unsigned i = 0; i < kWaveSize; ++i)
          dr[i] = f(direct + addr[i], dr[i]);
        return;
      }
      forEachLane(exec, [&](unsigned i) { dr[i] = f(at(i), dr[i]); });
    };
    auto u16 = [](const uint8_t *p) { // little-endian, as load32
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    };
    auto s8 = [](const uint8_t *p) { return uint16_t(int16_t(int8_t(p[0]))); };
    switch (m.Shape) {
    case DsShape::U8:
      lanes([](const uint8_t *p, uint32_t) { return uint32_t(p[0]); });
      break;
    case DsShape::I8:
      lanes([](const uint8_t *p, uint32_t) { return uint32_t(int32_t(int8_t(p[0]))); });
      break;
    case DsShape::U16:
      lanes([&](const uint8_t *p, uint32_t) { return uint32_t(u16(p)); });
      break;
    case DsShape::I16:
      lanes([&](const uint8_t *p, uint32_t) { return uint32_t(int32_t(int16_t(u16(p)))); });
      break;
    case DsShape::B32:
      forEachLane(exec, [&](unsigned i) {
        const uint8_t *p = at(i);
        for (unsigned k = 0; k < m.N; ++k)
          w.vrow(r + k)[i] = load32(p + 4 * k);
      });
      break;
    case DsShape::U8D16:
      lanes([](const uint8_t *p, uint32_t d) { return (d & 0xffff0000u) | p[0]; });
      break;
    case DsShape::I8D16:
      lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffff0000u) | s8(p); });
      break;
    case DsShape::U8D16Hi:
      lanes([](const uint8_t *p, uint32_t d) { return (d & 0xffffu) | (uint32_t(p[0]) << 16); });
      break;
    case DsShape::I8D16Hi:
      lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffffu) | (uint32_t(s8(p)) << 16); });
      break;
    case DsShape::U16D16:
      lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffff0000u) | u16(p); });
      break;
    case DsShape::U16D16Hi:
      lanes([&](const uint8_t *p, uint32_t d) { return (d & 0xffffu) | (uint32_t(u16(p)) << 16); });
      break;
    default:
      break;
    }
    return true;
  }
  case DsKind::Write: {
    const unsigned bytes = dsShapeBytes(m.Shape, m.N);
    const unsigned r = vectorIndex(in.Data0);
    uint8_t *const direct =
        ldsDirect(c, addr, offset16, bytes, exec) ? c.Wg.Lds.data() + offset16 : nullptr;
    if (direct && m.Shape == DsShape::B32 && r + m.N <= kNumVectorRegs) {
      ldsCopyDwords<false>(w, direct, addr, m.N, r, exec);
      return true;
    }
    forEachLane(exec, [&](unsigned i) {
      uint8_t *p = direct ? direct + addr[i]
                          : ldsAccess(c, uint64_t(addr[i]) + offset16, bytes, int(i), what);
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
    const unsigned bytes = 4u * m.N;
    const uint64_t o0 = uint64_t(in.Offset0) * m.Scale, o1 = uint64_t(in.Offset1) * m.Scale;
    const unsigned dr = in.Dst != kNoOperand ? vectorIndex(in.Dst) : 0;
    const unsigned d0 = in.Data0 != kNoOperand ? vectorIndex(in.Data0) : 0;
    const unsigned d1 = in.Data1 != kNoOperand ? vectorIndex(in.Data1) : 0;
    forEachLane(exec, [&](unsigned i) {
      uint8_t *p0 = ldsAccess(c, uint64_t(addr[i]) + o0, bytes, int(i), what);
      uint8_t *p1 = ldsAccess(c, uint64_t(addr[i]) + o1, bytes, int(i), what);
      if (m.Kind == DsKind::Read2) {
        for (unsigned k = 0; k < m.N; ++k) {
          w.vrow(dr + k)[i] = load32(p0 + 4 * k);
          w.vrow(dr + m.N + k)[i] = load32(p1 + 4 * k);
        }
        return;
      }
      // wrxchg2 reads both locations before writing either.
      uint32_t old[4] = {0, 0, 0, 0};
      if (m.Kind == DsKind::Wrxchg2)
        for (unsigned k = 0; k < m.N; ++k) {
          old[k] = load32(p0 + 4 * k);
          old[m.N + k] = load32(p1 + 4 * k);
        }
      for (unsigned k = 0; k < m.N; ++k)
        store32(p0 + 4 * k, w.vrow(d0 + k)[i]);
      for (unsigned k = 0; k < m.N; ++k)
        store32(p1 + 4 * k, w.vrow(d1 + k)[i]);
      if (m.Kind == DsKind::Wrxchg2 && in.Dst != kNoOperand)
        for (unsigned k = 0; k < 2u * m.N; ++k)
          w.vrow(dr + k)[i] = old[k];
    });
    return true;
  }
  case DsKind::Atomic: {
    const bool ret = m.Ret && in.Dst != kNoOperand;
    const unsigned d0 = vectorIndex(in.Data0);
    const bool two = m.Rmw == Rmw::CmpSwap || m.Rmw == Rmw::CmpSwapF32 ||
                     m.Rmw == Rmw::CmpSwapF64 || m.Rmw == Rmw::MskOr || m.Rmw == Rmw::Wrap;
    if (two && in.Data1 == kNoOperand)
      return false;
    const unsigned d1 = two ? vectorIndex(in.Data1) : 0;
    // For cmpst the compare value is DATA (data0) and the new value DATA2 (data1).
    const bool cmp = m.Rmw == Rmw::CmpSwap || m.Rmw == Rmw::CmpSwapF32 || m.Rmw == Rmw::CmpSwapF64;
    forEachLane(exec, [&](unsigned i) {
      uint8_t *p = ldsAccess(c, uint64_t(addr[i]) + offset16, m.Is64 ? 8 : 4, int(i), what);
      if (!m.Is64) {
        uint32_t a = w.vrow(d0)[i], b = two ? w.vrow(d1)[i] : 0;
        uint32_t old = load32(p);
        store32(p, cmp ? rmw32(m.Rmw, old, b, a) : rmw32(m.Rmw, old, a, b));
        if (ret)
          w.vrowOf(in.Dst)[i] = old;
      } else {
        uint64_t a = w.vrow(d0)[i] | (uint64_t(w.vrow(d0 + 1)[i]) << 32);
        uint64_t b = two ? (w.vrow(d1)[i] | (uint64_t(w.vrow(d1 + 1)[i]) << 32)) : 0;
        uint64_t old = load64(p);
        store64(p, cmp ? rmw64(m.Rmw, old, b, a) : rmw64(m.Rmw, old, a, b));
        if (ret)
          writeVector64(w, in.Dst, i, old);
      }
    });
    return true;
  }
  default:
    return false;
  }
}

} // namespace asmevo::emu
