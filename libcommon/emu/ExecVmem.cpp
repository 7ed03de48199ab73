// Vector memory: FLAT, GLOBAL, SCRATCH (flat-family) and MUBUF/MTBUF (buffer) instructions.
//
// Every access goes through the memory helpers of Exec.h (globalAccess / flatAccess /
// privateAccess), which fault with pc, lane and address. Buffer accesses are range-checked
// against the V# first: an out-of-range access is defined behaviour (loads return 0, stores and
// atomics are dropped), never a fault; an in-range access outside every allocation faults.
//
// Buffer addressing (gfx9 V#, 4 SGPRs):
//   base  = V#[47:0], stride = V#[61:48] (with add_tid_enable, data_format supplies
//           stride[17:14]), swizzle_enable = V#[63], num_records = V#[95:64],
//   dst_sel_xyzw = V#[107:96], num_format = V#[110:108], data_format = V#[114:111],
//   index_stride = V#[118:117] (8/16/32/64), add_tid_enable = V#[119].
//   index  = (idxen ? vaddr[0] : 0) + (add_tid_enable ? lane : 0)
//   offset = (offen ? vaddr[idxen ? 1 : 0] : 0) + inst_offset
//   linear:   addr = base + soffset + offset + index * stride
//   swizzled: addr = base + soffset + (index / istride * stride + offset / 4 * 4) * istride
//                    + index % istride * 4 + offset % 4     (gfx9: element size fixed at 4)
// Range checking (per dword for non-format dword loads/stores, whole element for format ops
// and atomics, byte range [o, o+size) against the limit):
//   add_tid_enable && !idxen (private segment buffer): not checked.
//   stride == 0 (raw):        out of range if soffset + offset + size > num_records (bytes).
//   stride != 0 (structured): out of range if index >= num_records (records), or, swizzled,
//                             offset >= stride.
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/ExecMemCommon.h"
#include "emu/LaneBlockCopy.h"

#include <cctype>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace asmevo::emu {

using namespace memdetail;

namespace {

enum class Kind : uint8_t { Load, Store, Atomic, LoadFormat, StoreFormat, Nop };
enum class Shape : uint8_t {
  U8,
  I8,
  U16,
  I16,
  B32, // loads writing whole dwords (B32: n dwords)
  U8D16,
  I8D16,
  U8D16Hi,
  I8D16Hi,
  B16D16,
  B16D16Hi, // loads writing one half
  B8,
  B8Hi,
  B16,
  B16Hi, // sub-dword stores
};

struct MemOp {
  emu::Kind Kind = emu::Kind::Nop;
  emu::Shape Shape = emu::Shape::B32;
  uint8_t N = 1; // dwords (B32) / format components
  emu::Rmw Rmw = emu::Rmw::Add;
  bool Is64 = false;               // 64-bit atomic
  bool D16 = false, D16Hi = false; // format ops
};

MemOp mk(Kind k, Shape s, unsigned n = 1) {
  MemOp m;
  m.Kind = k;
  m.Shape = s;
  m.N = uint8_t(n);
  return m;
}
MemOp at(Rmw r, bool is64) {
  MemOp m;
  m.Kind = Kind::Atomic;
  m.Rmw = r;
  m.Is64 = is64;
  return m;
}
MemOp fmt(Kind k, unsigned n, bool d16, bool hi = false) {
  MemOp m;
  m.Kind = k;
  m.N = uint8_t(n);
  m.D16 = d16;
  m.D16Hi = hi;
  return m;
}

#define ASMEVO_LS_CASES(P)                                                                         \
  case Op::P##_LOAD_UBYTE:                                                                         \
    out = mk(Kind::Load, Shape::U8);                                                               \
    return true;                                                                                   \
  case Op::P##_LOAD_SBYTE:                                                                         \
    out = mk(Kind::Load, Shape::I8);                                                               \
    return true;                                                                                   \
  case Op::P##_LOAD_USHORT:                                                                        \
    out = mk(Kind::Load, Shape::U16);                                                              \
    return true;                                                                                   \
  case Op::P##_LOAD_SSHORT:                                                                        \
    out = mk(Kind::Load, Shape::I16);                                                              \
    return true;                                                                                   \
  case Op::P##_LOAD_DWORD:                                                                         \
    out = mk(Kind::Load, Shape::B32, 1);                                                           \
    return true;                                                                                   \
  case Op::P##_LOAD_DWORDX2:                                                                       \
    out = mk(Kind::Load, Shape::B32, 2);                                                           \
    return true;                                                                                   \
  case Op::P##_LOAD_DWORDX3:                                                                       \
    out = mk(Kind::Load, Shape::B32, 3);                                                           \
    return true;                                                                                   \
  case Op::P##_LOAD_DWORDX4:                                                                       \
    out = mk(Kind::Load, Shape::B32, 4);                                                           \
    return true;                                                                                   \
  case Op::P##_LOAD_UBYTE_D16:                                                                     \
    out = mk(Kind::Load, Shape::U8D16);                                                            \
    return true;                                                                                   \
  case Op::P##_LOAD_UBYTE_D16_HI:                                                                  \
    out = mk(Kind::Load, Shape::U8D16Hi);                                                          \
    return true;                                                                                   \
  case Op::P##_LOAD_SBYTE_D16:                                                                     \
    out = mk(Kind::Load, Shape::I8D16);                                                            \
    return true;                                                                                   \
  case Op::P##_LOAD_SBYTE_D16_HI:                                                                  \
    out = mk(Kind::Load, Shape::I8D16Hi);                                                          \
    return true;                                                                                   \
  case Op::P##_LOAD_SHORT_D16:                                                                     \
    out = mk(Kind::Load, Shape::B16D16);                                                           \
    return true;                                                                                   \
  case Op::P##_LOAD_SHORT_D16_HI:                                                                  \
    out = mk(Kind::Load, Shape::B16D16Hi);                                                         \
    return true;                                                                                   \
  case Op::P##_STORE_BYTE:                                                                         \
    out = mk(Kind::Store, Shape::B8);                                                              \
    return true;                                                                                   \
  case Op::P##_STORE_BYTE_D16_HI:                                                                  \
    out = mk(Kind::Store, Shape::B8Hi);                                                            \
    return true;                                                                                   \
  case Op::P##_STORE_SHORT:                                                                        \
    out = mk(Kind::Store, Shape::B16);                                                             \
    return true;                                                                                   \
  case Op::P##_STORE_SHORT_D16_HI:                                                                 \
    out = mk(Kind::Store, Shape::B16Hi);                                                           \
    return true;                                                                                   \
  case Op::P##_STORE_DWORD:                                                                        \
    out = mk(Kind::Store, Shape::B32, 1);                                                          \
    return true;                                                                                   \
  case Op::P##_STORE_DWORDX2:                                                                      \
    out = mk(Kind::Store, Shape::B32, 2);                                                          \
    return true;                                                                                   \
  case Op::P##_STORE_DWORDX3:                                                                      \
    out = mk(Kind::Store, Shape::B32, 3);                                                          \
    return true;                                                                                   \
  case Op::P##_STORE_DWORDX4:                                                                      \
    out = mk(Kind::Store, Shape::B32, 4);                                                          \
    return true;

#define ASMEVO_AT_CASES(P)                                                                         \
  case Op::P##_ATOMIC_ADD:                                                                         \
    out = at(Rmw::Add, false);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SUB:                                                                         \
    out = at(Rmw::Sub, false);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SWAP:                                                                        \
    out = at(Rmw::Swap, false);                                                                    \
    return true;                                                                                   \
  case Op::P##_ATOMIC_CMPSWAP:                                                                     \
    out = at(Rmw::CmpSwap, false);                                                                 \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SMIN:                                                                        \
    out = at(Rmw::SMin, false);                                                                    \
    return true;                                                                                   \
  case Op::P##_ATOMIC_UMIN:                                                                        \
    out = at(Rmw::UMin, false);                                                                    \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SMAX:                                                                        \
    out = at(Rmw::SMax, false);                                                                    \
    return true;                                                                                   \
  case Op::P##_ATOMIC_UMAX:                                                                        \
    out = at(Rmw::UMax, false);                                                                    \
    return true;                                                                                   \
  case Op::P##_ATOMIC_AND:                                                                         \
    out = at(Rmw::And, false);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_OR:                                                                          \
    out = at(Rmw::Or, false);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_XOR:                                                                         \
    out = at(Rmw::Xor, false);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_INC:                                                                         \
    out = at(Rmw::Inc, false);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_DEC:                                                                         \
    out = at(Rmw::Dec, false);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_ADD_F32:                                                                     \
    out = at(Rmw::AddF32, false);                                                                  \
    return true;                                                                                   \
  case Op::P##_ATOMIC_PK_ADD_F16:                                                                  \
    out = at(Rmw::PkAddF16, false);                                                                \
    return true;                                                                                   \
  case Op::P##_ATOMIC_PK_ADD_BF16:                                                                 \
    out = at(Rmw::PkAddBf16, false);                                                               \
    return true;                                                                                   \
  case Op::P##_ATOMIC_ADD_X2:                                                                      \
    out = at(Rmw::Add, true);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SUB_X2:                                                                      \
    out = at(Rmw::Sub, true);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SWAP_X2:                                                                     \
    out = at(Rmw::Swap, true);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_CMPSWAP_X2:                                                                  \
    out = at(Rmw::CmpSwap, true);                                                                  \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SMIN_X2:                                                                     \
    out = at(Rmw::SMin, true);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_UMIN_X2:                                                                     \
    out = at(Rmw::UMin, true);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_SMAX_X2:                                                                     \
    out = at(Rmw::SMax, true);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_UMAX_X2:                                                                     \
    out = at(Rmw::UMax, true);                                                                     \
    return true;                                                                                   \
  case Op::P##_ATOMIC_AND_X2:                                                                      \
    out = at(Rmw::And, true);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_OR_X2:                                                                       \
    out = at(Rmw::Or, true);                                                                       \
    return true;                                                                                   \
  case Op::P##_ATOMIC_XOR_X2:                                                                      \
    out = at(Rmw::Xor, true);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_INC_X2:                                                                      \
    out = at(Rmw::Inc, true);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_DEC_X2:                                                                      \
    out = at(Rmw::Dec, true);                                                                      \
    return true;                                                                                   \
  case Op::P##_ATOMIC_ADD_F64:                                                                     \
    out = at(Rmw::AddF64, true);                                                                   \
    return true;                                                                                   \
  case Op::P##_ATOMIC_MIN_F64:                                                                     \
    out = at(Rmw::MinF64, true);                                                                   \
    return true;                                                                                   \
  case Op::P##_ATOMIC_MAX_F64:                                                                     \
    out = at(Rmw::MaxF64, true);                                                                   \
    return true;

bool classify(Op op, MemOp &out) {
  switch (op) {
    ASMEVO_LS_CASES(FLAT)
    ASMEVO_LS_CASES(GLOBAL)
    ASMEVO_LS_CASES(SCRATCH)
    ASMEVO_LS_CASES(BUFFER)
    ASMEVO_AT_CASES(FLAT)
    ASMEVO_AT_CASES(GLOBAL)
    ASMEVO_AT_CASES(BUFFER)
  case Op::BUFFER_WBINVL1:
  case Op::BUFFER_WBINVL1_VOL:
  case Op::BUFFER_WBL2:
  case Op::BUFFER_INV:
    out = MemOp();
    return true;
  case Op::BUFFER_LOAD_FORMAT_X:
    out = fmt(Kind::LoadFormat, 1, false);
    return true;
  case Op::BUFFER_LOAD_FORMAT_XY:
    out = fmt(Kind::LoadFormat, 2, false);
    return true;
  case Op::BUFFER_LOAD_FORMAT_XYZ:
    out = fmt(Kind::LoadFormat, 3, false);
    return true;
  case Op::BUFFER_LOAD_FORMAT_XYZW:
    out = fmt(Kind::LoadFormat, 4, false);
    return true;
  case Op::BUFFER_LOAD_FORMAT_D16_X:
    out = fmt(Kind::LoadFormat, 1, true);
    return true;
  case Op::BUFFER_LOAD_FORMAT_D16_HI_X:
    out = fmt(Kind::LoadFormat, 1, true, true);
    return true;
  case Op::BUFFER_LOAD_FORMAT_D16_XY:
    out = fmt(Kind::LoadFormat, 2, true);
    return true;
  case Op::BUFFER_LOAD_FORMAT_D16_XYZ:
    out = fmt(Kind::LoadFormat, 3, true);
    return true;
  case Op::BUFFER_LOAD_FORMAT_D16_XYZW:
    out = fmt(Kind::LoadFormat, 4, true);
    return true;
  case Op::BUFFER_STORE_FORMAT_X:
    out = fmt(Kind::StoreFormat, 1, false);
    return true;
  case Op::BUFFER_STORE_FORMAT_XY:
    out = fmt(Kind::StoreFormat, 2, false);
    return true;
  case Op::BUFFER_STORE_FORMAT_XYZ:
    out = fmt(Kind::StoreFormat, 3, false);
    return true;
  case Op::BUFFER_STORE_FORMAT_XYZW:
    out = fmt(Kind::StoreFormat, 4, false);
    return true;
  case Op::BUFFER_STORE_FORMAT_D16_X:
    out = fmt(Kind::StoreFormat, 1, true);
    return true;
  case Op::BUFFER_STORE_FORMAT_D16_HI_X:
    out = fmt(Kind::StoreFormat, 1, true, true);
    return true;
  case Op::BUFFER_STORE_FORMAT_D16_XY:
    out = fmt(Kind::StoreFormat, 2, true);
    return true;
  case Op::BUFFER_STORE_FORMAT_D16_XYZ:
    out = fmt(Kind::StoreFormat, 3, true);
    return true;
  case Op::BUFFER_STORE_FORMAT_D16_XYZW:
    out = fmt(Kind::StoreFormat, 4, true);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_X:
    out = fmt(Kind::LoadFormat, 1, false);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_XY:
    out = fmt(Kind::LoadFormat, 2, false);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_XYZ:
    out = fmt(Kind::LoadFormat, 3, false);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_XYZW:
    out = fmt(Kind::LoadFormat, 4, false);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_D16_X:
    out = fmt(Kind::LoadFormat, 1, true);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_D16_XY:
    out = fmt(Kind::LoadFormat, 2, true);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_D16_XYZ:
    out = fmt(Kind::LoadFormat, 3, true);
    return true;
  case Op::TBUFFER_LOAD_FORMAT_D16_XYZW:
    out = fmt(Kind::LoadFormat, 4, true);
    return true;
  case Op::TBUFFER_STORE_FORMAT_X:
    out = fmt(Kind::StoreFormat, 1, false);
    return true;
  case Op::TBUFFER_STORE_FORMAT_XY:
    out = fmt(Kind::StoreFormat, 2, false);
    return true;
  case Op::TBUFFER_STORE_FORMAT_XYZ:
    out = fmt(Kind::StoreFormat, 3, false);
    return true;
  case Op::TBUFFER_STORE_FORMAT_XYZW:
    out = fmt(Kind::StoreFormat, 4, false);
    return true;
  case Op::TBUFFER_STORE_FORMAT_D16_X:
    out = fmt(Kind::StoreFormat, 1, true);
    return true;
  case Op::TBUFFER_STORE_FORMAT_D16_XY:
    out = fmt(Kind::StoreFormat, 2, true);
    return true;
  case Op::TBUFFER_STORE_FORMAT_D16_XYZ:
    out = fmt(Kind::StoreFormat, 3, true);
    return true;
  case Op::TBUFFER_STORE_FORMAT_D16_XYZW:
    out = fmt(Kind::StoreFormat, 4, true);
    return true;
  default:
    return false;
  }
}
#undef ASMEVO_LS_CASES
#undef ASMEVO_AT_CASES

unsigned shapeBytes(const MemOp &m) {
  switch (m.Shape) {
  case Shape::U8:
  case Shape::I8:
  case Shape::U8D16:
  case Shape::I8D16:
  case Shape::U8D16Hi:
  case Shape::I8D16Hi:
  case Shape::B8:
  case Shape::B8Hi:
    return 1;
  case Shape::U16:
  case Shape::I16:
  case Shape::B16D16:
  case Shape::B16D16Hi:
  case Shape::B16:
  case Shape::B16Hi:
    return 2;
  case Shape::B32:
    return 4u * m.N;
  }
  return 4;
}

// Writes a loaded value (buf: the bytes read, zero where out of range) to the destination.
inline void writeLoad(WaveState &w, uint16_t dst, unsigned lane, Shape s, unsigned n,
                      const uint8_t *buf) {
  unsigned r = vectorIndex(dst);
  uint32_t &d = w.vrow(r)[lane];
  uint16_t h = uint16_t(buf[0] | (unsigned(buf[1]) << 8));
  switch (s) {
  case Shape::U8:
    d = buf[0];
    break;
  case Shape::I8:
    d = uint32_t(int32_t(int8_t(buf[0])));
    break;
  case Shape::U16:
    d = h;
    break;
  case Shape::I16:
    d = uint32_t(int32_t(int16_t(h)));
    break;
  case Shape::B32:
    for (unsigned k = 0; k < n; ++k)
      w.vrow(r + k)[lane] = load32(buf + 4 * k);
    break;
  case Shape::U8D16:
    d = (d & 0xffff0000u) | buf[0];
    break;
  case Shape::I8D16:
    d = (d & 0xffff0000u) | uint16_t(int16_t(int8_t(buf[0])));
    break;
  case Shape::U8D16Hi:
    d = (d & 0xffffu) | (uint32_t(buf[0]) << 16);
    break;
  case Shape::I8D16Hi:
    d = (d & 0xffffu) | (uint32_t(uint16_t(int16_t(int8_t(buf[0])))) << 16);
    break;
  case Shape::B16D16:
    d = (d & 0xffff0000u) | h;
    break;
  case Shape::B16D16Hi:
    d = (d & 0xffffu) | (uint32_t(h) << 16);
    break;
  default:
    break;
  }
}

// Gathers the bytes a store writes.
inline void readStore(const WaveState &w, uint16_t data, unsigned lane, Shape s, unsigned n,
                      uint8_t *buf) {
  unsigned r = vectorIndex(data);
  uint32_t v = w.vrow(r)[lane];
  switch (s) {
  case Shape::B8:
    buf[0] = uint8_t(v);
    break;
  case Shape::B8Hi:
    buf[0] = uint8_t(v >> 16);
    break;
  case Shape::B16:
    buf[0] = uint8_t(v);
    buf[1] = uint8_t(v >> 8);
    break;
  case Shape::B16Hi:
    buf[0] = uint8_t(v >> 16);
    buf[1] = uint8_t(v >> 24);
    break;
  case Shape::B32:
    for (unsigned k = 0; k < n; ++k)
      store32(buf + 4 * k, w.vrow(r + k)[lane]);
    break;
  default:
    break;
  }
}

bool returnsPreOp(const Inst &in) { return (in.Glc || in.Sc0) && in.Dst != kNoOperand; }

// One lane's atomic at host pointer p (devAddr keys the lock).
inline void atomicLane(ExecCtx &c, const Inst &in, const MemOp &m, unsigned lane, uint8_t *p,
                       uint64_t devAddr, bool ret) {
  WaveState &w = c.W;
  unsigned d = vectorIndex(in.Data0);
  if (!m.Is64) {
    uint32_t src = w.vrow(d)[lane];
    uint32_t cmp = m.Rmw == Rmw::CmpSwap ? w.vrow(d + 1)[lane] : 0;
    uint32_t old;
    {
      std::lock_guard<std::mutex> g(c.Mem.atomicLock(devAddr));
      old = load32(p);
      store32(p, rmw32(m.Rmw, old, src, cmp));
    }
    if (ret)
      w.vrowOf(in.Dst)[lane] = old;
  } else {
    uint64_t src = w.vrow(d)[lane] | (uint64_t(w.vrow(d + 1)[lane]) << 32);
    uint64_t cmp =
        m.Rmw == Rmw::CmpSwap ? (w.vrow(d + 2)[lane] | (uint64_t(w.vrow(d + 3)[lane]) << 32)) : 0;
    uint64_t old;
    {
      std::lock_guard<std::mutex> g(c.Mem.atomicLock(devAddr));
      old = load64(p);
      store64(p, rmw64(m.Rmw, old, src, cmp));
    }
    if (ret)
      writeVector64(w, in.Dst, lane, old);
  }
}

// ---- FLAT / GLOBAL / SCRATCH -------------------------------------------------------------

// global_load_dword(xN) / global_store_dword(xN) on a short path: no hooks on (strict checks,
// trace, footprints) and every active lane's dwords inside one allocation, found from the
// lowest address and checked against the highest. It changes nothing and returns false
// otherwise; the per-lane path then gives the same result, or the fault that names the lane.
template <bool Load>
bool globalDwordsFast(ExecCtx &c, uint16_t reg, unsigned n, uint64_t exec, bool hasSaddr,
                      uint64_t sbase, const uint32_t *vOff, const uint32_t *vHi, int64_t off) {
  if (c.Strict || c.Trace || c.Track || reg < kVgprBase || reg == kNoOperand ||
      vectorIndex(reg) + n > kNumVectorRegs)
    return false;
  uint64_t addr[kWaveSize];
  uint64_t lo = ~0ull, hi = 0;
  auto laneAddr = [&](unsigned l) {
    const uint64_t a = hasSaddr ? sbase + uint64_t(vOff ? vOff[l] : 0u) + uint64_t(off)
                                : (uint64_t(vOff[l]) | (uint64_t(vHi[l]) << 32)) + uint64_t(off);
    addr[l] = a;
    lo = a < lo ? a : lo;
    hi = a > hi ? a : hi;
  };
  if (exec == ~0ull) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      laneAddr(l);
  } else {
    forEachLane(exec, laneAddr);
  }
  const Allocation *a = c.LastAlloc;
  if (!a || lo - a->Base >= a->Size) {
    a = c.Mem.find(lo);
    if (!a)
      return false;
  }
  if (hi - a->Base >= a->Size || 4ull * n > a->Size - (hi - a->Base))
    return false;
  c.LastAlloc = a;
  uint8_t *const bytes = a->Bytes.get();
  const uint64_t base = a->Base;
  uint32_t *rows[4];
  dwordRows(c.W, reg, n, rows);
  if (exec == ~0ull && copyPackedLanes(Load, bytes + (addr[0] - base), addr, n, rows))
    return true;
  forEachLane(exec,
              [&](unsigned l) { copyLaneDwords<Load>(bytes + (addr[l] - base), rows, n, l); });
  return true;
}

bool execFlatFamily(ExecCtx &c, const Inst &in) {
  MemOp m;
  if (!classify(in.Operation, m))
    return false;
  if (m.Kind != Kind::Load && m.Kind != Kind::Store && m.Kind != Kind::Atomic)
    return false;
  if ((m.Kind == Kind::Load && in.Dst == kNoOperand) ||
      (m.Kind != Kind::Load && in.Data0 == kNoOperand))
    return false;
  WaveState &w = c.W;
  const uint64_t exec = w.exec();
  if (exec == 0)
    return true;
  const char *what = opNameLower(in.Operation);
  const Enc enc = in.Encoding;
  const int64_t off = in.Offset;

  // Scalar parts of the address, read once.
  uint64_t sbase = 0;
  if (enc == Enc::GLOBAL && in.Saddr != kNoOperand)
    sbase = readScalar64(w, in, in.Saddr, OpType::B64);
  uint32_t sOff32 = 0;
  if (enc == Enc::SCRATCH && in.Saddr != kNoOperand)
    sOff32 = readScalar32(w, in, in.Saddr, OpType::B32);
  const uint32_t *vOff = (in.Addr != kNoOperand) ? w.vrowOf(in.Addr) : nullptr;
  const uint32_t *vHi = (in.Addr != kNoOperand && vectorIndex(in.Addr) + 1 < kNumVectorRegs)
                            ? w.vrow(vectorIndex(in.Addr) + 1)
                            : nullptr;

  // Device address (flat/global) or private offset (scratch) of a lane.
  auto laneAddr = [&](unsigned lane) -> uint64_t {
    switch (enc) {
    case Enc::GLOBAL:
      if (in.Saddr != kNoOperand)
        return sbase + uint64_t(vOff ? vOff[lane] : 0u) + uint64_t(off);
      return (uint64_t(vOff[lane]) | (uint64_t(vHi[lane]) << 32)) + uint64_t(off);
    case Enc::SCRATCH:
      return uint32_t(sOff32 + (vOff ? vOff[lane] : 0u) + uint32_t(off));
    default: // FLAT
      return (uint64_t(vOff[lane]) | (uint64_t(vHi[lane]) << 32)) + uint64_t(off);
    }
  };
  if (enc != Enc::SCRATCH && !(enc == Enc::GLOBAL && in.Saddr != kNoOperand) && (!vOff || !vHi))
    return false;
  auto access = [&](unsigned lane, uint64_t a, unsigned size) -> uint8_t * {
    switch (enc) {
    case Enc::GLOBAL:
      return globalAccess(c, a, size, int(lane), what);
    case Enc::SCRATCH:
      return privateAccess(c, a, size, int(lane), what);
    default:
      return flatAccess(c, a, size, int(lane), what);
    }
  };

  const bool global = enc == Enc::GLOBAL && m.Shape == Shape::B32 && m.N <= 4;
  const bool hasSaddr = in.Saddr != kNoOperand;
  if (m.Kind == Kind::Load) {
    if (global && globalDwordsFast<true>(c, in.Dst, m.N, exec, hasSaddr, sbase, vOff, vHi, off))
      return true;
    const unsigned bytes = shapeBytes(m);
    forEachLane(exec, [&](unsigned lane) {
      uint8_t buf[16] = {};
      std::memcpy(buf, access(lane, laneAddr(lane), bytes), bytes);
      writeLoad(w, in.Dst, lane, m.Shape, m.N, buf);
    });
    return true;
  }
  if (m.Kind == Kind::Store) {
    if (global && globalDwordsFast<false>(c, in.Data0, m.N, exec, hasSaddr, sbase, vOff, vHi, off))
      return true;
    const unsigned bytes = shapeBytes(m);
    forEachLane(exec, [&](unsigned lane) {
      uint8_t buf[16];
      readStore(w, in.Data0, lane, m.Shape, m.N, buf);
      std::memcpy(access(lane, laneAddr(lane), bytes), buf, bytes);
    });
    return true;
  }
  // Atomic.
  if (enc == Enc::SCRATCH)
    return false;
  const bool ret = returnsPreOp(in);
  const unsigned size = m.Is64 ? 8 : 4;
  forEachLane(exec, [&](unsigned lane) {
    uint64_t a = laneAddr(lane);
    uint8_t *p = access(lane, a, size);
    atomicLane(c, in, m, lane, p, a, ret);
  });
  return true;
}

// ---- MUBUF / MTBUF -----------------------------------------------------------------------

// A V# decoded. Fields are whole words (no byte fields): the struct is filled and read once per
// instruction, and narrow stores followed by a wide copy stall store forwarding.
struct BufferRsrc {
  uint64_t Base = 0;
  uint32_t Stride = 0; // effective (18 bits with add_tid_enable)
  uint32_t NumRecords = 0;
  uint32_t Swizzle = 0, AddTid = 0;
  uint32_t Word3 = 0; // DST_SEL_X/Y/Z/W: bits 11:0
  uint32_t Nfmt = 0, Dfmt = 0;
  uint32_t IndexStride = 8;
  unsigned dstSel(unsigned k) const { return (Word3 >> (3 * k)) & 7u; }
};

inline void decodeRsrc(const WaveState &w, uint16_t sbase, BufferRsrc &r) {
  uint32_t w0 = w.S[sbase], w1 = w.S[sbase + 1], w2 = w.S[sbase + 2], w3 = w.S[sbase + 3];
  r.Base = w0 | (uint64_t(w1 & 0xffffu) << 32);
  r.Stride = (w1 >> 16) & 0x3fffu;
  r.Swizzle = (w1 >> 31) & 1u;
  r.NumRecords = w2;
  r.Word3 = w3;
  r.Nfmt = (w3 >> 12) & 7u;
  r.Dfmt = (w3 >> 15) & 0xfu;
  r.IndexStride = 8u << ((w3 >> 21) & 3u);
  r.AddTid = (w3 >> 23) & 1u;
  if (r.AddTid)
    r.Stride |= r.Dfmt << 14; // data_format supplies stride[17:14]
}

struct BufferAddr {
  const BufferRsrc &R;
  uint64_t SOffset;
  const uint32_t *VIdx, *VOff;
  uint32_t InstOffset;
  bool NoRangeCheck;

  uint64_t index(unsigned lane) const {
    return uint64_t(VIdx ? VIdx[lane] : 0u) + (R.AddTid ? lane : 0u);
  }
  uint64_t offset(unsigned lane) const { return uint64_t(VOff ? VOff[lane] : 0u) + InstOffset; }

  // Device address of byte `o` (buffer offset) of record `idx`, or false when [o, o+size) is
  // out of range.
  // The range check compares the byte offset with num_records unless the access is indexed
  // (idxen) into a structured (stride != 0) or swizzled buffer: then the record index is
  // checked. An offen-only access through a V# with a stride is checked by its byte offset, as
  // AITer's kernels rely on (they set stride 4 and num_records = the buffer's bytes); AMD's
  // rocjitsu emulator moved to the same rule to match gfx950 hardware.
  bool resolve(uint64_t idx, uint64_t o, unsigned size, uint64_t &addr) const {
    if (!NoRangeCheck) {
      if (R.Stride == 0 || (!VIdx && !R.Swizzle)) {
        if (SOffset + o + size > R.NumRecords)
          return false;
      } else {
        if (idx >= R.NumRecords)
          return false;
        if (R.Swizzle && o >= R.Stride)
          return false;
      }
    }
    uint64_t rel;
    if (R.Swizzle) {
      const uint64_t is = R.IndexStride, es = 4;
      rel = ((idx / is) * R.Stride + (o / es) * es) * is + (idx % is) * es + o % es;
    } else {
      rel = o + idx * R.Stride;
    }
    addr = R.Base + SOffset + rel;
    return true;
  }
};

// A MUBUF instruction's address operands: the V#, soffset and the idxen / offen VGPRs. False
// when the encoding names no usable V# or address VGPR.
struct MubufOperands {
  BufferRsrc R;
  uint64_t Soff = 0;
  const uint32_t *VIdx = nullptr, *VOff = nullptr;
};

[[gnu::always_inline]] inline bool readMubufOperands(ExecCtx &c, const Inst &in, MubufOperands &m) {
  WaveState &w = c.W;
  if (in.Sbase == kNoOperand || in.Sbase + 3 >= 128)
    return false;
  decodeRsrc(w, in.Sbase, m.R);
  m.Soff = in.Soffset == kNoOperand ? 0 : readScalar32(w, in, in.Soffset, OpType::B32);
  if (in.Idxen || in.Offen) {
    if (in.Addr == kNoOperand)
      return false;
    unsigned a = vectorIndex(in.Addr);
    if (in.Idxen)
      m.VIdx = w.vrow(a);
    if (in.Offen)
      m.VOff = w.vrow(in.Idxen ? a + 1 : a);
  }
  return true;
}

// Data-format channel layout for the format instructions (0 comps: not supported).
struct FmtInfo {
  uint8_t Comps, Bits;
};
FmtInfo formatInfo(unsigned dfmt) {
  switch (dfmt) {
  case 1:
    return {1, 8};
  case 2:
    return {1, 16};
  case 3:
    return {2, 8};
  case 4:
    return {1, 32};
  case 5:
    return {2, 16};
  case 10:
    return {4, 8};
  case 11:
    return {2, 32};
  case 12:
    return {4, 16};
  case 13:
    return {3, 32};
  case 14:
    return {4, 32};
  default:
    return {0, 0};
  }
}
enum : unsigned {
  NfUnorm = 0,
  NfSnorm = 1,
  NfUscaled = 2,
  NfSscaled = 3,
  NfUint = 4,
  NfSint = 5,
  NfFloat = 7
};
bool isFloatish(unsigned nfmt) { return nfmt != NfUint && nfmt != NfSint; }

// Channel bits -> the 32-bit value a non-d16 format load returns.
uint32_t decodeChannel(uint32_t raw, unsigned bits, unsigned nfmt) {
  const uint32_t mask = bits == 32 ? 0xffffffffu : ((1u << bits) - 1);
  raw &= mask;
  const int32_t sx = bits == 32 ? int32_t(raw) : int32_t(raw << (32 - bits)) >> (32 - bits);
  switch (nfmt) {
  case NfUint:
    return raw;
  case NfSint:
    return uint32_t(sx);
  case NfFloat:
    return bits == 32 ? raw : f32ToBits(f16ToF32(uint16_t(raw)));
  case NfUnorm:
    return f32ToBits(float(double(raw) / double(mask)));
  case NfSnorm: {
    double v = double(sx) / double(mask >> 1);
    return f32ToBits(float(v < -1.0 ? -1.0 : v));
  }
  case NfUscaled:
    return f32ToBits(float(raw));
  case NfSscaled:
    return f32ToBits(float(sx));
  }
  return 0;
}
bool loadFormatSupported(unsigned bits, unsigned nfmt, bool d16) {
  switch (nfmt) {
  case NfUint:
  case NfSint:
    return !(d16 && bits == 32);
  case NfFloat:
    return bits >= 16;
  case NfUnorm:
  case NfSnorm:
  case NfUscaled:
  case NfSscaled:
    return bits < 32;
  default:
    return false;
  }
}
bool storeFormatSupported(unsigned bits, unsigned nfmt) {
  switch (nfmt) {
  case NfUint:
  case NfSint:
    return true;
  case NfFloat:
    return bits >= 16;
  default:
    return false;
  }
}

// Calls f(std::integral_constant<unsigned, n>, std::bool_constant<load>) for n in 1..4: the
// dword copies are templates on the count and the direction.
template <class F> void byDwords(unsigned n, bool load, F &&f) {
  using L = std::true_type;
  using S = std::false_type;
  switch (n * 2 + (load ? 1 : 0)) {
  case 2:
    return f(std::integral_constant<unsigned, 1>{}, S{});
  case 3:
    return f(std::integral_constant<unsigned, 1>{}, L{});
  case 4:
    return f(std::integral_constant<unsigned, 2>{}, S{});
  case 5:
    return f(std::integral_constant<unsigned, 2>{}, L{});
  case 6:
    return f(std::integral_constant<unsigned, 3>{}, S{});
  case 7:
    return f(std::integral_constant<unsigned, 3>{}, L{});
  case 8:
    return f(std::integral_constant<unsigned, 4>{}, S{});
  default:
    return f(std::integral_constant<unsigned, 4>{}, L{});
  }
}

// The fast path of raw-buffer dword loads and stores: a lane whose N dwords lie inside
// num_records and inside one known allocation copies them straight between memory and its
// registers; any other lane goes to `slow`, the general per-lane path. When every active lane
// is inside (allInside, checked once on the smallest and largest offset), copyAll runs without
// a per-lane check; with EXEC all ones it is a plain loop over the 64 lanes.
struct RawDwords {
  uint64_t NumRecords = 0, SOffset = 0, Rel = 0, AllocSize = 0;
  uint8_t *Bytes = nullptr;
  const uint32_t *VOff = nullptr;
  uint32_t InstOffset = 0;
  // Set by allInside: the offsets ascend by `stride` bytes from lane 0's (off[l] = off[0] +
  // l * stride, no wrap-around; stride 0 without offsets), so copyAll need not read them. Only
  // with EXEC all ones, or without offsets.
  bool Strided = false;
  uint32_t Stride = 0;

  // Lane offset o (vOff + instOffset) inside num_records and inside the allocation.
  bool inside(uint64_t o, unsigned n) const {
    const uint64_t at = Rel + o; // offset into the allocation (wraps when below it)
    return SOffset + o + 4 * n <= NumRecords && at < AllocSize && 4 * n <= AllocSize - at;
  }

  // Every active lane inside: the lowest and the highest offset are, and the allocation offsets
  // in between do not wrap (at(hi) >= at(lo) with both inside the allocation). With EXEC all
  // ones, offsets that ascend by a constant stride (one vectorized pass) give both ends at once.
  bool allInside(uint64_t exec, unsigned n) {
    if (!VOff) { // every lane at the one offset
      Strided = true, Stride = 0;
      return inside(InstOffset, n);
    }
    uint32_t lo = ~0u, hi = 0;
    if (exec == ~0ull) {
      const uint32_t o0 = VOff[0], step = VOff[1] - o0;
      uint32_t bad = 0;
      for (unsigned l = 0; l + 1 < kWaveSize; ++l)
        bad |= (VOff[l + 1] - VOff[l]) ^ step;
      if (bad == 0 && uint64_t(VOff[kWaveSize - 1]) == uint64_t(o0) + uint64_t(step) * 63) {
        Strided = true, Stride = step, lo = o0, hi = VOff[kWaveSize - 1];
      } else {
        for (unsigned l = 0; l < kWaveSize; ++l) {
          lo = VOff[l] < lo ? VOff[l] : lo;
          hi = VOff[l] > hi ? VOff[l] : hi;
        }
      }
    } else {
      forEachLane(exec, [&](unsigned l) {
        lo = VOff[l] < lo ? VOff[l] : lo;
        hi = VOff[l] > hi ? VOff[l] : hi;
      });
    }
    const uint64_t oLo = uint64_t(lo) + InstOffset, oHi = uint64_t(hi) + InstOffset;
    return inside(oLo, n) && inside(oHi, n) && Rel + oHi >= Rel + oLo;
  }

  template <unsigned N, bool Load>
  static void copy(uint8_t *p, uint32_t *const *rows, unsigned lane) {
    copyLaneDwords<Load>(p, rows, N, lane);
  }

  // A host cache hint, no change to any result. A streaming kernel's waves read and write
  // consecutive spans, one after another; the host's prefetchers lose such a stream between
  // waves and at every 4 KiB page. After a full-EXEC access whose lanes ascend over at most
  // 4 KiB, one span of the same length is prefetched, W spans ahead for a workgroup of W waves
  // (at least 2): the waves of one workgroup run in a shuffled order (scheduleGroup), so the
  // next span's wave may already have run, while W spans ahead is the same wave of the next
  // workgroup. emu_bench's vector add (4 waves per workgroup) measured 1.40e9 lane-inst/s with
  // the span after next and 1.52e9 four spans ahead (medians of 25 alternated runs on a shared
  // VM; the ratio to the native loop 9.1x and 8.6x). A span that the wave's previous prefetch
  // covered (Triton's loads of dwords 0..3 of each lane's 16 bytes, one instruction each) is
  // not prefetched again.
  template <bool Load> void prefetchAhead(ExecCtx &c, const uint8_t *lo, const uint8_t *hi) const {
    const size_t len = size_t(hi - lo);
    const size_t ahead = c.Wg.NumWaves > 2 ? c.Wg.NumWaves : 2;
    if (hi <= lo || len > 4096 || size_t(hi - Bytes) + ahead * len > AllocSize)
      return;
    const uint8_t *from = hi + (ahead - 1) * len, *to = hi + ahead * len;
    if (from >= c.PrefetchFrom && to <= c.PrefetchTo + 64)
      return;
    c.PrefetchFrom = from, c.PrefetchTo = to;
    for (const uint8_t *p = from; p < to; p += 64)
      __builtin_prefetch(p, Load ? 0 : 1);
  }

  // The copy when allInside(exec, N) holds. Everything the loop reads is in locals: a store through
  // a byte pointer may alias any memory, and the compiler would reload the fields and row pointers
  // after each one.
  template <unsigned N, bool Load>
  void copyAll(ExecCtx &c, uint64_t exec, uint32_t *const *rowsIn) const {
    uint8_t *const at = Bytes + (Rel + InstOffset); // every lane's at + vOff is in the allocation
    const uint32_t *const off = VOff ? VOff : kZeroLanes;
    uint32_t *rows[N];
    for (unsigned k = 0; k < N; ++k)
      rows[k] = rowsIn[k];
    if (exec == ~0ull) {
      uint8_t *const p0 = at + off[0];
      if (Strided && Stride == 4 * N) {
        copyPackedBlock(Load, p0, N, rowsIn);
      } else if (Strided) {
        const size_t s = Stride;
        uint8_t *p = p0;
#pragma GCC unroll 8
        for (unsigned lane = 0; lane < kWaveSize; ++lane, p += s)
          copy<N, Load>(p, rows, lane);
      } else { // not a progression, so not packed either
#pragma GCC unroll 8
        for (unsigned lane = 0; lane < kWaveSize; ++lane)
          copy<N, Load>(at + off[lane], rows, lane);
      }
      prefetchAhead<Load>(c, p0, at + off[kWaveSize - 1] + 4 * N);
    } else {
      forEachLane(exec, [&](unsigned lane) { copy<N, Load>(at + off[lane], rows, lane); });
    }
  }

  // Lane by lane, for an access with some lane outside (execBuffer tried allInside first).
  template <unsigned N, bool Load, class Slow>
  bool run(uint64_t exec, uint32_t *const *rows, Slow &slow) const {
    forEachLane(exec, [&](unsigned lane) {
      const uint64_t o = uint64_t(VOff ? VOff[lane] : 0u) + InstOffset;
      if (!inside(o, N)) {
        slow(lane);
        return;
      }
      copy<N, Load>(Bytes + (Rel + o), rows, lane);
    });
    return true;
  }
};

// The raw-dword view of a buffer access (RawDwords): dwords through a V# without index,
// swizzle or add_tid (checked by byte offset, whatever its stride), no hooks on, a destination
// or source of n whole registers, and the allocation the first active lane's address falls in
// (one lookup per instruction). False when any of that does not hold.
bool rawDwords(ExecCtx &c, const Inst &in, const MemOp &m, const MubufOperands &mo, uint64_t exec,
               RawDwords &f, uint32_t *rows[4]) {
  const BufferRsrc &r = mo.R;
  const uint16_t reg = m.Kind == Kind::Load ? in.Dst : in.Data0;
  if ((m.Kind != Kind::Load && m.Kind != Kind::Store) || m.Shape != Shape::B32 || m.N > 4 ||
      mo.VIdx || r.Swizzle || r.AddTid || c.Strict || c.Trace || c.Track ||
      vectorIndex(reg) + m.N > kNumVectorRegs)
    return false;
  const uint32_t instOffset = uint32_t(in.Offset) & 0xfffu;
  const uint64_t a0 =
      r.Base + mo.Soff + (mo.VOff ? mo.VOff[unsigned(__builtin_ctzll(exec))] : 0u) + instOffset;
  const Allocation *a = c.LastAlloc;
  if (!a || a0 - a->Base >= a->Size) {
    a = c.Mem.find(a0);
    if (!a)
      return false;
    c.LastAlloc = a;
  }
  f = RawDwords{r.NumRecords, mo.Soff,   r.Base + mo.Soff - a->Base, a->Size, a->Bytes.get(),
                mo.VOff,      instOffset};
  dwordRows(c.W, reg, m.N, rows);
  return true;
}

bool execBuffer(ExecCtx &c, const Inst &in) {
  MemOp m;
  if (!classify(in.Operation, m))
    return false;
  if (m.Kind == Kind::Nop)
    return true; // cache write-back / invalidate: memory is coherent here
  const bool isLoad = m.Kind == Kind::Load || m.Kind == Kind::LoadFormat;
  if ((isLoad && in.Dst == kNoOperand) || (!isLoad && in.Data0 == kNoOperand))
    return false;
  WaveState &w = c.W;
  const uint64_t exec = w.exec();
  if (exec == 0)
    return true;
  MubufOperands mo;
  if (!readMubufOperands(c, in, mo))
    return false;
  // The commonest access on a short path: raw dwords with every active lane inside num_records
  // and the allocation, copied with no per-lane test.
  RawDwords f;
  uint32_t *rows[4];
  const bool raw = rawDwords(c, in, m, mo, exec, f, rows);
  if (raw && f.allInside(exec, m.N)) {
    byDwords(m.N, m.Kind == Kind::Load, [&](auto N, auto L) {
      f.template copyAll<decltype(N)::value, decltype(L)::value>(c, exec, rows);
    });
    return true;
  }
  const char *what = opNameLower(in.Operation);
  const BufferRsrc &r = mo.R;
  const uint64_t soff = mo.Soff;
  const uint32_t *vIdx = mo.VIdx, *vOff = mo.VOff;
  BufferAddr ba{r, soff, vIdx, vOff, uint32_t(in.Offset) & 0xfffu, r.AddTid && !in.Idxen};

  if (m.Kind == Kind::Load || m.Kind == Kind::Store) {
    const unsigned bytes = shapeBytes(m);
    const unsigned cs = bytes < 4 ? bytes : 4; // range-checked per dword
    const unsigned comps = bytes / cs;
    const bool load = m.Kind == Kind::Load;
    auto laneAccess = [&](unsigned lane) {
      uint8_t buf[16] = {};
      if (!load)
        readStore(w, in.Data0, lane, m.Shape, m.N, buf);
      uint64_t idx = ba.index(lane), o = ba.offset(lane);
      uint64_t a;
      // Whole access in range and contiguous: one translation.
      if (!r.Swizzle && ba.resolve(idx, o, bytes, a)) {
        uint8_t *p = globalAccess(c, a, bytes, int(lane), what);
        if (load)
          std::memcpy(buf, p, bytes);
        else
          std::memcpy(p, buf, bytes);
      } else {
        for (unsigned k = 0; k < comps; ++k) {
          if (!ba.resolve(idx, o + k * cs, cs, a))
            continue; // out of range: reads 0, writes dropped
          uint8_t *p = globalAccess(c, a, cs, int(lane), what);
          if (load)
            std::memcpy(buf + k * cs, p, cs);
          else
            std::memcpy(p, buf + k * cs, cs);
        }
      }
      if (load)
        writeLoad(w, in.Dst, lane, m.Shape, m.N, buf);
    };
    // Raw dwords with some lane outside: the lanes inside are copied directly, the others take
    // laneAccess, which gives the same result (zeros, dropped writes, or the fault).
    if (raw) {
      bool ran = false;
      byDwords(m.N, load, [&](auto N, auto L) {
        ran = f.template run<decltype(N)::value, decltype(L)::value>(exec, rows, laneAccess);
      });
      return ran;
    }
    forEachLane(exec, laneAccess);
    return true;
  }

  if (m.Kind == Kind::Atomic) {
    const bool ret = returnsPreOp(in);
    const unsigned size = m.Is64 ? 8 : 4;
    forEachLane(exec, [&](unsigned lane) {
      uint64_t a;
      if (!ba.resolve(ba.index(lane), ba.offset(lane), size, a)) {
        if (ret) { // dropped; the returned value reads as 0
          w.vrowOf(in.Dst)[lane] = 0;
          if (m.Is64)
            w.vrow(vectorIndex(in.Dst) + 1)[lane] = 0;
        }
        return;
      }
      atomicLane(c, in, m, lane, globalAccess(c, a, size, int(lane), what), a, ret);
    });
    return true;
  }

  // Format loads/stores: MTBUF takes the format from the instruction, MUBUF from the V#.
  const unsigned dfmt = in.Encoding == Enc::MTBUF ? in.Dfmt : r.Dfmt;
  const unsigned nfmt = in.Encoding == Enc::MTBUF ? in.Nfmt : r.Nfmt;
  const FmtInfo fi = formatInfo(dfmt);
  if (fi.Comps == 0)
    return false;
  const unsigned chBytes = fi.Bits / 8u, elemBytes = fi.Comps * chBytes;
  const bool load = m.Kind == Kind::LoadFormat;
  if (load ? !loadFormatSupported(fi.Bits, nfmt, m.D16) : !storeFormatSupported(fi.Bits, nfmt))
    return false;
  const bool fl = isFloatish(nfmt);
  const unsigned dst = vectorIndex(load ? in.Dst : in.Data0);
  forEachLane(exec, [&](unsigned lane) {
    uint64_t a;
    uint8_t *p = nullptr;
    if (ba.resolve(ba.index(lane), ba.offset(lane), elemBytes, a))
      p = globalAccess(c, a, elemBytes, int(lane), what);
    if (load) {
      uint32_t ch[4] = {0, 0, 0, 0}; // 32-bit values, or 16-bit for d16
      const uint32_t one = m.D16 ? (fl ? 0x3c00u : 1u) : (fl ? 0x3f800000u : 1u);
      for (unsigned k = 0; k < 4; ++k) {
        if (k >= fi.Comps) {
          ch[k] = k == 3 ? one : 0;
          continue;
        }
        if (!p)
          continue;
        uint32_t raw = 0;
        std::memcpy(&raw, p + k * chBytes, chBytes);
        uint32_t v = decodeChannel(raw, fi.Bits, nfmt);
        if (m.D16)
          v = fl ? (fi.Bits == 16 && nfmt == NfFloat ? (raw & 0xffffu) : f32ToF16(bitsToF32(v)))
                 : (v & 0xffffu);
        ch[k] = v;
      }
      uint32_t out[4];
      for (unsigned k = 0; k < 4; ++k) {
        unsigned sel = r.dstSel(k);
        out[k] = sel >= 4 ? ch[sel - 4] : sel == 1 ? one : 0;
      }
      if (!m.D16) {
        for (unsigned k = 0; k < m.N; ++k)
          w.vrow(dst + k)[lane] = out[k];
      } else if (m.D16Hi) {
        uint32_t &d = w.vrow(dst)[lane];
        d = (d & 0xffffu) | (out[0] << 16);
      } else {
        for (unsigned k = 0; k < m.N; ++k) {
          uint32_t &d = w.vrow(dst + k / 2)[lane];
          if (k & 1)
            d = (d & 0xffffu) | (out[k] << 16);
          else
            d = (d & 0xffff0000u) | (out[k] & 0xffffu);
        }
      }
    } else {
      if (!p)
        return; // out of range: dropped
      const unsigned nc = m.N < fi.Comps ? m.N : fi.Comps;
      for (unsigned k = 0; k < nc; ++k) {
        uint32_t raw;
        if (!m.D16) {
          uint32_t v = w.vrow(dst + k)[lane];
          raw = (nfmt == NfFloat && fi.Bits == 16) ? f32ToF16(bitsToF32(v)) : v;
        } else {
          uint32_t reg = w.vrow(dst + (m.D16Hi ? 0 : k / 2))[lane];
          uint16_t h = uint16_t((m.D16Hi || (k & 1)) ? reg >> 16 : reg);
          // Widen the 16-bit value as the number format reads it.
          if (nfmt == NfFloat)
            raw = fi.Bits == 16 ? h : f32ToBits(f16ToF32(h));
          else if (nfmt == NfSint)
            raw = uint32_t(int32_t(int16_t(h)));
          else
            raw = h;
        }
        std::memcpy(p + k * chBytes, &raw, chBytes);
      }
    }
  });
  return true;
}

// ---- Loads into LDS (LDS DMA) -------------------------------------------------------------
// buffer_load_* with the lds bit, and global_load_lds_* / scratch_load_lds_*: each active lane
// reads its bytes from memory exactly as the plain load would (buffer range checks included: an
// out-of-range dword reads as 0), and the data goes to LDS instead of to VGPRs (no VGPR is
// written; the VDATA field is ignored). Lane L's bytes land at
//   LDS offset from M0 + instruction offset + L * stride,
// stride 4 for a dword, 16 for dwordx3/dwordx4 (dwordx3 writes 3 dwords and skips the 4th).
// Inactive lanes write nothing: their slots keep what they held. The M0 offset is M0[15:0] for
// buffer loads on CDNA2/CDNA3 and M0[17:0] on CDNA4 (ISA guides section 9.1.9), M0[17:2] * 4 for
// the global and scratch forms (section 10.3). Sources: CDNA3 / CDNA4 ISA reference guides, LLVM
// docs/AMDGPUDMAOperations.md. The write completes with the load, in vmcnt: the bytes land in
// LDS when an s_waitcnt vmcnt proves the load complete, or at s_endpgm, the latest a GPU may
// land them (landLdsWrites); the strict checks report any access that depends on when.
//
// Not emulated, with the reason: sub-dword and format loads to LDS (no document says whether a
// byte or short fills its 4-byte slot extended or leaves the rest untouched), and dwordx3/x4 to
// LDS before gfx950 (documented as not working there).
struct DmaShape {
  unsigned Bytes = 0, Stride = 0; // 0 bytes: not emulated
  const char *Why = nullptr;
};

DmaShape dmaShape(Op op, Gfx g) {
  switch (op) {
  case Op::BUFFER_LOAD_DWORD:
  case Op::GLOBAL_LOAD_LDS_DWORD:
  case Op::SCRATCH_LOAD_LDS_DWORD:
    return {4, 4, nullptr};
  case Op::BUFFER_LOAD_DWORDX3:
  case Op::GLOBAL_LOAD_LDS_DWORDX3:
  case Op::BUFFER_LOAD_DWORDX4:
  case Op::GLOBAL_LOAD_LDS_DWORDX4: {
    const bool x3 = op == Op::BUFFER_LOAD_DWORDX3 || op == Op::GLOBAL_LOAD_LDS_DWORDX3;
    if (g != Gfx::Gfx950)
      return {0, 0, "loads of 3 or 4 dwords into LDS exist on gfx950 only"};
    return {x3 ? 12u : 16u, 16, nullptr};
  }
  case Op::BUFFER_LOAD_UBYTE:
  case Op::BUFFER_LOAD_SBYTE:
  case Op::BUFFER_LOAD_USHORT:
  case Op::BUFFER_LOAD_SSHORT:
  case Op::GLOBAL_LOAD_LDS_UBYTE:
  case Op::GLOBAL_LOAD_LDS_SBYTE:
  case Op::GLOBAL_LOAD_LDS_USHORT:
  case Op::GLOBAL_LOAD_LDS_SSHORT:
  case Op::SCRATCH_LOAD_LDS_UBYTE:
  case Op::SCRATCH_LOAD_LDS_SBYTE:
  case Op::SCRATCH_LOAD_LDS_USHORT:
  case Op::SCRATCH_LOAD_LDS_SSHORT:
    return {0, 0,
            "the ISA documents do not say how a byte or short loaded into LDS fills its 4-byte "
            "slot"};
  case Op::BUFFER_LOAD_FORMAT_X:
    return {0, 0, "format conversion on the way into LDS is not documented in enough detail"};
  default:
    return {0, 0, "no such load into LDS"};
  }
}

[[noreturn]] void dmaUnsupported(const ExecCtx &c, const Inst &in, const char *why) {
  std::string m = opNameLower(in.Operation);
  if (in.Encoding == Enc::MUBUF)
    m += " lds";
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + m + " at pc " + hexText(c.InstPc) + ": " + why,
                 c.InstPc);
}

// One lane's bytes for LDS: bounds-checked against the workgroup's allocation, traced, shown to
// the strict checks as a write, and kept pending in the wave until the load completes (vmcnt):
// the data lands late, as on hardware, not when the load issues.
void dmaLdsWrite(ExecCtx &c, uint64_t addr, const uint8_t *data, unsigned size, unsigned lane,
                 const char *what) {
  if (addr + size > c.Wg.Lds.size())
    throwMemoryFault(what, addr, size, int(lane), c.InstPc,
                     "LDS address (M0 offset + instruction offset + lane slot) outside the "
                     "workgroup's " +
                         std::to_string(c.Wg.Lds.size()) + "-byte LDS allocation");
  if (c.Strict)
    strictLdsDmaWrite(c, addr, size, data);
  if (c.Trace)
    traceAccess(c, addr, size, int(lane), TraceSpace::Lds);
  WaveState::PendingLdsWrite p;
  p.Seq = c.W.VmemIssued;
  p.LdsAddr = uint32_t(addr);
  p.Size = uint8_t(size);
  std::memcpy(p.Bytes, data, size);
  c.W.PendingLds.push_back(p);
}

bool execLdsDma(ExecCtx &c, const Inst &in) {
  if (in.Encoding == Enc::MTBUF)
    return false;
  const DmaShape sh = dmaShape(in.Operation, c.Target);
  if (!sh.Bytes)
    dmaUnsupported(c, in, sh.Why);
  WaveState &w = c.W;
  const uint64_t exec = w.exec();
  if (exec == 0)
    return true;
  const uint32_t m0 = w.S[kM0];
  const char *what = opNameLower(in.Operation);
  const unsigned dwords = sh.Bytes / 4;

  if (in.Encoding == Enc::MUBUF) {
    MubufOperands mo;
    if (!readMubufOperands(c, in, mo))
      return false;
    const uint64_t ldsBase = m0 & (c.Target == Gfx::Gfx950 ? 0x3ffffu : 0xffffu);
    const uint32_t instOffset = uint32_t(in.Offset) & 0xfffu;
    BufferAddr ba{mo.R, mo.Soff, mo.VIdx, mo.VOff, instOffset, mo.R.AddTid && !in.Idxen};
    forEachLane(exec, [&](unsigned lane) {
      uint8_t buf[16] = {};
      const uint64_t idx = ba.index(lane), o = ba.offset(lane);
      for (unsigned k = 0; k < dwords; ++k) {
        uint64_t a;
        if (ba.resolve(idx, o + 4 * k, 4, a)) // out of range: the dword reads as 0
          std::memcpy(buf + 4 * k, globalAccess(c, a, 4, int(lane), what), 4);
      }
      dmaLdsWrite(c, ldsBase + instOffset + uint64_t(lane) * sh.Stride, buf, sh.Bytes, lane, what);
    });
    return true;
  }

  // GLOBAL / SCRATCH load_lds: addressed as the plain load.
  const int64_t off = in.Offset;
  const uint64_t ldsBase = uint64_t(m0 & 0x3fffcu) + uint64_t(off);
  uint64_t sbase = 0;
  uint32_t sOff32 = 0;
  if (in.Encoding == Enc::GLOBAL && in.Saddr != kNoOperand)
    sbase = readScalar64(w, in, in.Saddr, OpType::B64);
  if (in.Encoding == Enc::SCRATCH && in.Saddr != kNoOperand)
    sOff32 = readScalar32(w, in, in.Saddr, OpType::B32);
  const uint32_t *vOff = in.Addr != kNoOperand ? w.vrowOf(in.Addr) : nullptr;
  const uint32_t *vHi = in.Addr != kNoOperand && vectorIndex(in.Addr) + 1 < kNumVectorRegs
                            ? w.vrow(vectorIndex(in.Addr) + 1)
                            : nullptr;
  if (in.Encoding == Enc::GLOBAL && in.Saddr == kNoOperand && (!vOff || !vHi))
    return false;
  if (in.Encoding != Enc::GLOBAL && in.Encoding != Enc::SCRATCH)
    return false;
  forEachLane(exec, [&](unsigned lane) {
    const uint8_t *p;
    if (in.Encoding == Enc::GLOBAL) {
      uint64_t a = in.Saddr != kNoOperand
                       ? sbase + uint64_t(vOff ? vOff[lane] : 0u) + uint64_t(off)
                       : (uint64_t(vOff[lane]) | (uint64_t(vHi[lane]) << 32)) + uint64_t(off);
      p = globalAccess(c, a, sh.Bytes, int(lane), what);
    } else {
      p = privateAccess(c, uint32_t(sOff32 + (vOff ? vOff[lane] : 0u) + uint32_t(off)), sh.Bytes,
                        int(lane), what);
    }
    dmaLdsWrite(c, ldsBase + uint64_t(lane) * sh.Stride, p, sh.Bytes, lane, what);
  });
  return true;
}

} // namespace

void landLdsWrites(ExecCtx &c, unsigned vmcnt) {
  WaveState &w = c.W;
  if (w.PendingLds.empty())
    return;
  const uint64_t done = w.VmemIssued > vmcnt ? w.VmemIssued - vmcnt : 0;
  size_t kept = 0;
  for (size_t i = 0; i < w.PendingLds.size(); ++i) {
    const WaveState::PendingLdsWrite &p = w.PendingLds[i];
    if (p.Seq <= done)
      std::memcpy(c.Wg.Lds.data() + p.LdsAddr, p.Bytes, p.Size);
    else
      w.PendingLds[kept++] = p;
  }
  w.PendingLds.resize(kept);
}

bool execVmem(ExecCtx &c, const Inst &in) {
  ++c.W.VmemIssued;
  if (in.Lds)
    return execLdsDma(c, in);
  switch (in.Encoding) {
  case Enc::FLAT:
  case Enc::GLOBAL:
  case Enc::SCRATCH:
    return execFlatFamily(c, in);
  case Enc::MUBUF:
  case Enc::MTBUF:
    return execBuffer(c, in);
  default:
    return false;
  }
}

} // namespace asmevo::emu
