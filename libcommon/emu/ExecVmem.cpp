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
MemOp at(Rmw r, bool Is64) {
  MemOp m;
  m.Kind = Kind::Atomic;
  m.Rmw = r;
  m.Is64 = Is64;
  return m;
}
MemOp fmt(Kind k, unsigned n, bool D16, bool Hi = false) {
  MemOp m;
  m.Kind = k;
  m.N = uint8_t(n);
  m.D16 = D16;
  m.D16Hi = Hi;
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

bool classify(Op Op, MemOp &out) {
  switch (Op) {
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
inline void writeLoad(WaveState &w, uint16_t Dst, unsigned Lane, Shape s, unsigned n,
                      const uint8_t *Buf) {
  unsigned r = vectorIndex(Dst);
  uint32_t &d = w.vrow(r)[Lane];
  uint16_t h = uint16_t(Buf[0] | (unsigned(Buf[1]) << 8));
  switch (s) {
  case Shape::U8:
    d = Buf[0];
    break;
  case Shape::I8:
    d = uint32_t(int32_t(int8_t(Buf[0])));
    break;
  case Shape::U16:
    d = h;
    break;
  case Shape::I16:
    d = uint32_t(int32_t(int16_t(h)));
    break;
  case Shape::B32:
    for (unsigned k = 0; k < n; ++k)
      w.vrow(r + k)[Lane] = load32(Buf + 4 * k);
    break;
  case Shape::U8D16:
    d = (d & 0xffff0000u) | Buf[0];
    break;
  case Shape::I8D16:
    d = (d & 0xffff0000u) | uint16_t(int16_t(int8_t(Buf[0])));
    break;
  case Shape::U8D16Hi:
    d = (d & 0xffffu) | (uint32_t(Buf[0]) << 16);
    break;
  case Shape::I8D16Hi:
    d = (d & 0xffffu) | (uint32_t(uint16_t(int16_t(int8_t(Buf[0])))) << 16);
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
inline void readStore(const WaveState &w, uint16_t Data, unsigned Lane, Shape s, unsigned n,
                      uint8_t *Buf) {
  unsigned r = vectorIndex(Data);
  uint32_t v = w.vrow(r)[Lane];
  switch (s) {
  case Shape::B8:
    Buf[0] = uint8_t(v);
    break;
  case Shape::B8Hi:
    Buf[0] = uint8_t(v >> 16);
    break;
  case Shape::B16:
    Buf[0] = uint8_t(v);
    Buf[1] = uint8_t(v >> 8);
    break;
  case Shape::B16Hi:
    Buf[0] = uint8_t(v >> 16);
    Buf[1] = uint8_t(v >> 24);
    break;
  case Shape::B32:
    for (unsigned k = 0; k < n; ++k)
      store32(Buf + 4 * k, w.vrow(r + k)[Lane]);
    break;
  default:
    break;
  }
}

bool returnsPreOp(const Inst &In) { return (In.Glc || In.Sc0) && In.Dst != kNoOperand; }

// One lane's atomic at host pointer p (devAddr keys the lock).
inline void atomicLane(ExecCtx &c, const Inst &In, const MemOp &m, unsigned Lane, uint8_t *p,
                       uint64_t DevAddr, bool Ret) {
  WaveState &w = c.W;
  unsigned d = vectorIndex(In.Data0);
  if (!m.Is64) {
    uint32_t Src = w.vrow(d)[Lane];
    uint32_t Cmp = m.Rmw == Rmw::CmpSwap ? w.vrow(d + 1)[Lane] : 0;
    uint32_t Old;
    {
      std::lock_guard<std::mutex> g(c.Mem.atomicLock(DevAddr));
      Old = load32(p);
      store32(p, rmw32(m.Rmw, Old, Src, Cmp));
    }
    if (Ret)
      w.vrowOf(In.Dst)[Lane] = Old;
  } else {
    uint64_t Src = w.vrow(d)[Lane] | (uint64_t(w.vrow(d + 1)[Lane]) << 32);
    uint64_t Cmp =
        m.Rmw == Rmw::CmpSwap ? (w.vrow(d + 2)[Lane] | (uint64_t(w.vrow(d + 3)[Lane]) << 32)) : 0;
    uint64_t Old;
    {
      std::lock_guard<std::mutex> g(c.Mem.atomicLock(DevAddr));
      Old = load64(p);
      store64(p, rmw64(m.Rmw, Old, Src, Cmp));
    }
    if (Ret)
      writeVector64(w, In.Dst, Lane, Old);
  }
}

// ---- FLAT / GLOBAL / SCRATCH -------------------------------------------------------------

// global_load_dword(xN) / global_store_dword(xN) on a short path: no hooks on (strict checks,
// trace, footprints) and every active lane's dwords inside one allocation, found from the
// lowest address and checked against the highest. It changes nothing and returns false
// otherwise; the per-lane path then gives the same result, or the fault that names the lane.
template <bool Load>
bool globalDwordsFast(ExecCtx &c, uint16_t Reg, unsigned n, uint64_t Exec, bool HasSaddr,
                      uint64_t Sbase, const uint32_t *VOff, const uint32_t *VHi, int64_t Off) {
  if (c.Strict || c.Trace || c.Track || Reg < kVgprBase || Reg == kNoOperand ||
      vectorIndex(Reg) + n > kNumVectorRegs)
    return false;
  uint64_t Addr[kWaveSize];
  uint64_t Lo = ~0ull, Hi = 0;
  auto LaneAddr = [&](unsigned l) {
    const uint64_t a = HasSaddr ? Sbase + uint64_t(VOff ? VOff[l] : 0u) + uint64_t(Off)
                                : (uint64_t(VOff[l]) | (uint64_t(VHi[l]) << 32)) + uint64_t(Off);
    Addr[l] = a;
    Lo = a < Lo ? a : Lo;
    Hi = a > Hi ? a : Hi;
  };
  if (Exec == ~0ull) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      LaneAddr(l);
  } else {
    forEachLane(Exec, LaneAddr);
  }
  const Allocation *a = c.LastAlloc;
  if (!a || Lo - a->Base >= a->Size) {
    a = c.Mem.find(Lo);
    if (!a)
      return false;
  }
  if (Hi - a->Base >= a->Size || 4ull * n > a->Size - (Hi - a->Base))
    return false;
  c.LastAlloc = a;
  uint8_t *const Bytes = a->Bytes.get();
  const uint64_t Base = a->Base;
  uint32_t *Rows[4];
  dwordRows(c.W, Reg, n, Rows);
  if (Exec == ~0ull && copyPackedLanes(Load, Bytes + (Addr[0] - Base), Addr, n, Rows))
    return true;
  forEachLane(Exec,
              [&](unsigned l) { copyLaneDwords<Load>(Bytes + (Addr[l] - Base), Rows, n, l); });
  return true;
}

bool execFlatFamily(ExecCtx &c, const Inst &In) {
  MemOp m;
  if (!classify(In.Operation, m))
    return false;
  if (m.Kind != Kind::Load && m.Kind != Kind::Store && m.Kind != Kind::Atomic)
    return false;
  if ((m.Kind == Kind::Load && In.Dst == kNoOperand) ||
      (m.Kind != Kind::Load && In.Data0 == kNoOperand))
    return false;
  WaveState &w = c.W;
  const uint64_t Exec = w.exec();
  if (Exec == 0)
    return true;
  const char *What = opNameLower(In.Operation);
  const Enc Enc = In.Encoding;
  const int64_t Off = In.Offset;

  // Scalar parts of the address, read once.
  uint64_t Sbase = 0;
  if (Enc == Enc::GLOBAL && In.Saddr != kNoOperand)
    Sbase = readScalar64(w, In, In.Saddr, OpType::B64);
  uint32_t SOff32 = 0;
  if (Enc == Enc::SCRATCH && In.Saddr != kNoOperand)
    SOff32 = readScalar32(w, In, In.Saddr, OpType::B32);
  const uint32_t *VOff = (In.Addr != kNoOperand) ? w.vrowOf(In.Addr) : nullptr;
  const uint32_t *VHi = (In.Addr != kNoOperand && vectorIndex(In.Addr) + 1 < kNumVectorRegs)
                            ? w.vrow(vectorIndex(In.Addr) + 1)
                            : nullptr;

  // Device address (flat/global) or private offset (scratch) of a lane.
  auto LaneAddr = [&](unsigned Lane) -> uint64_t {
    switch (Enc) {
    case Enc::GLOBAL:
      if (In.Saddr != kNoOperand)
        return Sbase + uint64_t(VOff ? VOff[Lane] : 0u) + uint64_t(Off);
      return (uint64_t(VOff[Lane]) | (uint64_t(VHi[Lane]) << 32)) + uint64_t(Off);
    case Enc::SCRATCH:
      return uint32_t(SOff32 + (VOff ? VOff[Lane] : 0u) + uint32_t(Off));
    default: // FLAT
      return (uint64_t(VOff[Lane]) | (uint64_t(VHi[Lane]) << 32)) + uint64_t(Off);
    }
  };
  if (Enc != Enc::SCRATCH && !(Enc == Enc::GLOBAL && In.Saddr != kNoOperand) && (!VOff || !VHi))
    return false;
  auto Access = [&](unsigned Lane, uint64_t a, unsigned Size) -> uint8_t * {
    switch (Enc) {
    case Enc::GLOBAL:
      return globalAccess(c, a, Size, int(Lane), What);
    case Enc::SCRATCH:
      return privateAccess(c, a, Size, int(Lane), What);
    default:
      return flatAccess(c, a, Size, int(Lane), What);
    }
  };

  const bool Global = Enc == Enc::GLOBAL && m.Shape == Shape::B32 && m.N <= 4;
  const bool HasSaddr = In.Saddr != kNoOperand;
  if (m.Kind == Kind::Load) {
    if (Global && globalDwordsFast<true>(c, In.Dst, m.N, Exec, HasSaddr, Sbase, VOff, VHi, Off))
      return true;
    const unsigned Bytes = shapeBytes(m);
    forEachLane(Exec, [&](unsigned Lane) {
      uint8_t Buf[16] = {};
      std::memcpy(Buf, Access(Lane, LaneAddr(Lane), Bytes), Bytes);
      writeLoad(w, In.Dst, Lane, m.Shape, m.N, Buf);
    });
    return true;
  }
  if (m.Kind == Kind::Store) {
    if (Global && globalDwordsFast<false>(c, In.Data0, m.N, Exec, HasSaddr, Sbase, VOff, VHi, Off))
      return true;
    const unsigned Bytes = shapeBytes(m);
    forEachLane(Exec, [&](unsigned Lane) {
      uint8_t Buf[16];
      readStore(w, In.Data0, Lane, m.Shape, m.N, Buf);
      std::memcpy(Access(Lane, LaneAddr(Lane), Bytes), Buf, Bytes);
    });
    return true;
  }
  // Atomic.
  if (Enc == Enc::SCRATCH)
    return false;
  const bool Ret = returnsPreOp(In);
  const unsigned Size = m.Is64 ? 8 : 4;
  forEachLane(Exec, [&](unsigned Lane) {
    uint64_t a = LaneAddr(Lane);
    uint8_t *p = Access(Lane, a, Size);
    atomicLane(c, In, m, Lane, p, a, Ret);
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

inline void decodeRsrc(const WaveState &w, uint16_t Sbase, BufferRsrc &r) {
  uint32_t w0 = w.S[Sbase], w1 = w.S[Sbase + 1], w2 = w.S[Sbase + 2], w3 = w.S[Sbase + 3];
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

  uint64_t index(unsigned Lane) const {
    return uint64_t(VIdx ? VIdx[Lane] : 0u) + (R.AddTid ? Lane : 0u);
  }
  uint64_t offset(unsigned Lane) const { return uint64_t(VOff ? VOff[Lane] : 0u) + InstOffset; }

  // Device address of byte `o` (buffer offset) of record `idx`, or false when [o, o+size) is
  // out of range.
  // The range check compares the byte offset with num_records unless the access is indexed
  // (idxen) into a structured (stride != 0) or swizzled buffer: then the record index is
  // checked. An offen-only access through a V# with a stride is checked by its byte offset, as
  // AITer's kernels rely on (they set stride 4 and num_records = the buffer's bytes); AMD's
  // rocjitsu emulator moved to the same rule to match gfx950 hardware.
  bool resolve(uint64_t Idx, uint64_t o, unsigned Size, uint64_t &Addr) const {
    if (!NoRangeCheck) {
      if (R.Stride == 0 || (!VIdx && !R.Swizzle)) {
        if (SOffset + o + Size > R.NumRecords)
          return false;
      } else {
        if (Idx >= R.NumRecords)
          return false;
        if (R.Swizzle && o >= R.Stride)
          return false;
      }
    }
    uint64_t Rel;
    if (R.Swizzle) {
      const uint64_t Is = R.IndexStride, Es = 4;
      Rel = ((Idx / Is) * R.Stride + (o / Es) * Es) * Is + (Idx % Is) * Es + o % Es;
    } else {
      Rel = o + Idx * R.Stride;
    }
    Addr = R.Base + SOffset + Rel;
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

[[gnu::always_inline]] inline bool readMubufOperands(ExecCtx &c, const Inst &In, MubufOperands &m) {
  WaveState &w = c.W;
  if (In.Sbase == kNoOperand || In.Sbase + 3 >= 128)
    return false;
  decodeRsrc(w, In.Sbase, m.R);
  m.Soff = In.Soffset == kNoOperand ? 0 : readScalar32(w, In, In.Soffset, OpType::B32);
  if (In.Idxen || In.Offen) {
    if (In.Addr == kNoOperand)
      return false;
    unsigned a = vectorIndex(In.Addr);
    if (In.Idxen)
      m.VIdx = w.vrow(a);
    if (In.Offen)
      m.VOff = w.vrow(In.Idxen ? a + 1 : a);
  }
  return true;
}

// Data-format channel layout for the format instructions (0 comps: not supported).
struct FmtInfo {
  uint8_t Comps, Bits;
};
FmtInfo formatInfo(unsigned Dfmt) {
  switch (Dfmt) {
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
bool isFloatish(unsigned Nfmt) { return Nfmt != NfUint && Nfmt != NfSint; }

// Channel bits -> the 32-bit value a non-d16 format load returns.
uint32_t decodeChannel(uint32_t Raw, unsigned Bits, unsigned Nfmt) {
  const uint32_t Mask = Bits == 32 ? 0xffffffffu : ((1u << Bits) - 1);
  Raw &= Mask;
  const int32_t Sx = Bits == 32 ? int32_t(Raw) : int32_t(Raw << (32 - Bits)) >> (32 - Bits);
  switch (Nfmt) {
  case NfUint:
    return Raw;
  case NfSint:
    return uint32_t(Sx);
  case NfFloat:
    return Bits == 32 ? Raw : f32ToBits(f16ToF32(uint16_t(Raw)));
  case NfUnorm:
    return f32ToBits(float(double(Raw) / double(Mask)));
  case NfSnorm: {
    double v = double(Sx) / double(Mask >> 1);
    return f32ToBits(float(v < -1.0 ? -1.0 : v));
  }
  case NfUscaled:
    return f32ToBits(float(Raw));
  case NfSscaled:
    return f32ToBits(float(Sx));
  }
  return 0;
}
bool loadFormatSupported(unsigned Bits, unsigned Nfmt, bool D16) {
  switch (Nfmt) {
  case NfUint:
  case NfSint:
    return !(D16 && Bits == 32);
  case NfFloat:
    return Bits >= 16;
  case NfUnorm:
  case NfSnorm:
  case NfUscaled:
  case NfSscaled:
    return Bits < 32;
  default:
    return false;
  }
}
bool storeFormatSupported(unsigned Bits, unsigned Nfmt) {
  switch (Nfmt) {
  case NfUint:
  case NfSint:
    return true;
  case NfFloat:
    return Bits >= 16;
  default:
    return false;
  }
}

// Calls f(std::integral_constant<unsigned, n>, std::bool_constant<load>) for n in 1..4: the
// dword copies are templates on the count and the direction.
template <class F> void byDwords(unsigned n, bool Load, F &&f) {
  using L = std::true_type;
  using S = std::false_type;
  switch (n * 2 + (Load ? 1 : 0)) {
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
    const uint64_t At = Rel + o; // offset into the allocation (wraps when below it)
    return SOffset + o + 4 * n <= NumRecords && At < AllocSize && 4 * n <= AllocSize - At;
  }

  // Every active lane inside: the lowest and the highest offset are, and the allocation offsets
  // in between do not wrap (at(hi) >= at(lo) with both inside the allocation). With EXEC all
  // ones, offsets that ascend by a constant stride (one vectorized pass) give both ends at once.
  bool allInside(uint64_t Exec, unsigned n) {
    if (!VOff) { // every lane at the one offset
      Strided = true, Stride = 0;
      return inside(InstOffset, n);
    }
    uint32_t Lo = ~0u, Hi = 0;
    if (Exec == ~0ull) {
      const uint32_t o0 = VOff[0], Step = VOff[1] - o0;
      uint32_t Bad = 0;
      for (unsigned l = 0; l + 1 < kWaveSize; ++l)
        Bad |= (VOff[l + 1] - VOff[l]) ^ Step;
      if (Bad == 0 && uint64_t(VOff[kWaveSize - 1]) == uint64_t(o0) + uint64_t(Step) * 63) {
        Strided = true, Stride = Step, Lo = o0, Hi = VOff[kWaveSize - 1];
      } else {
        for (unsigned l = 0; l < kWaveSize; ++l) {
          Lo = VOff[l] < Lo ? VOff[l] : Lo;
          Hi = VOff[l] > Hi ? VOff[l] : Hi;
        }
      }
    } else {
      forEachLane(Exec, [&](unsigned l) {
        Lo = VOff[l] < Lo ? VOff[l] : Lo;
        Hi = VOff[l] > Hi ? VOff[l] : Hi;
      });
    }
    const uint64_t OLo = uint64_t(Lo) + InstOffset, OHi = uint64_t(Hi) + InstOffset;
    return inside(OLo, n) && inside(OHi, n) && Rel + OHi >= Rel + OLo;
  }

  template <unsigned N, bool Load>
  static void copy(uint8_t *p, uint32_t *const *Rows, unsigned Lane) {
    copyLaneDwords<Load>(p, Rows, N, Lane);
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
  template <bool Load> void prefetchAhead(ExecCtx &c, const uint8_t *Lo, const uint8_t *Hi) const {
    const size_t Len = size_t(Hi - Lo);
    const size_t Ahead = c.Wg.NumWaves > 2 ? c.Wg.NumWaves : 2;
    if (Hi <= Lo || Len > 4096 || size_t(Hi - Bytes) + Ahead * Len > AllocSize)
      return;
    const uint8_t *From = Hi + (Ahead - 1) * Len, *To = Hi + Ahead * Len;
    if (From >= c.PrefetchFrom && To <= c.PrefetchTo + 64)
      return;
    c.PrefetchFrom = From, c.PrefetchTo = To;
    for (const uint8_t *p = From; p < To; p += 64)
      __builtin_prefetch(p, Load ? 0 : 1);
  }

  // The copy when allInside(exec, N) holds. Everything the loop reads is in locals: a store through
  // a byte pointer may alias any memory, and the compiler would reload the fields and row pointers
  // after each one.
  template <unsigned N, bool Load>
  void copyAll(ExecCtx &c, uint64_t Exec, uint32_t *const *RowsIn) const {
    uint8_t *const At = Bytes + (Rel + InstOffset); // every lane's at + vOff is in the allocation
    const uint32_t *const Off = VOff ? VOff : kZeroLanes;
    uint32_t *Rows[N];
    for (unsigned k = 0; k < N; ++k)
      Rows[k] = RowsIn[k];
    if (Exec == ~0ull) {
      uint8_t *const p0 = At + Off[0];
      if (Strided && Stride == 4 * N) {
        copyPackedBlock(Load, p0, N, RowsIn);
      } else if (Strided && N == 1 && Load && Stride < (1u << 25)) {
        // One dword a lane, lanes Stride bytes apart (Triton's elementwise loads take the four
        // dwords of each lane's 16 bytes in four instructions): a gather.
        gatherStridedWords(p0, Stride, Rows[0]);
      } else if (Strided) {
        const size_t s = Stride;
        uint8_t *p = p0;
#pragma GCC unroll 8
        for (unsigned Lane = 0; Lane < kWaveSize; ++Lane, p += s)
          copy<N, Load>(p, Rows, Lane);
      } else { // not a progression, so not packed either
#pragma GCC unroll 8
        for (unsigned Lane = 0; Lane < kWaveSize; ++Lane)
          copy<N, Load>(At + Off[Lane], Rows, Lane);
      }
      prefetchAhead<Load>(c, p0, At + Off[kWaveSize - 1] + 4 * N);
    } else {
      forEachLane(Exec, [&](unsigned Lane) { copy<N, Load>(At + Off[Lane], Rows, Lane); });
    }
  }

  // Lane by lane, for an access with some lane outside (execBuffer tried allInside first).
  template <unsigned N, bool Load, class Slow>
  bool run(uint64_t Exec, uint32_t *const *Rows, Slow &OutsideLane) const {
    forEachLane(Exec, [&](unsigned Lane) {
      const uint64_t o = uint64_t(VOff ? VOff[Lane] : 0u) + InstOffset;
      if (!inside(o, N)) {
        OutsideLane(Lane);
        return;
      }
      copy<N, Load>(Bytes + (Rel + o), Rows, Lane);
    });
    return true;
  }
};

// The raw-dword view of a buffer access (RawDwords): dwords through a V# without index,
// swizzle or add_tid (checked by byte offset, whatever its stride), no hooks on, a destination
// or source of n whole registers, and the allocation the first active lane's address falls in
// (one lookup per instruction). False when any of that does not hold.
bool rawDwords(ExecCtx &c, const Inst &In, const MemOp &m, const MubufOperands &Mo, uint64_t Exec,
               RawDwords &f, uint32_t *Rows[4]) {
  const BufferRsrc &r = Mo.R;
  const uint16_t Reg = m.Kind == Kind::Load ? In.Dst : In.Data0;
  if ((m.Kind != Kind::Load && m.Kind != Kind::Store) || m.Shape != Shape::B32 || m.N > 4 ||
      Mo.VIdx || r.Swizzle || r.AddTid || c.Strict || c.Trace || c.Track ||
      vectorIndex(Reg) + m.N > kNumVectorRegs)
    return false;
  const uint32_t InstOffset = uint32_t(In.Offset) & 0xfffu;
  const uint64_t a0 =
      r.Base + Mo.Soff + (Mo.VOff ? Mo.VOff[unsigned(__builtin_ctzll(Exec))] : 0u) + InstOffset;
  const Allocation *a = c.LastAlloc;
  if (!a || a0 - a->Base >= a->Size) {
    a = c.Mem.find(a0);
    if (!a)
      return false;
    c.LastAlloc = a;
  }
  f = RawDwords{r.NumRecords, Mo.Soff,   r.Base + Mo.Soff - a->Base, a->Size, a->Bytes.get(),
                Mo.VOff,      InstOffset};
  dwordRows(c.W, Reg, m.N, Rows);
  return true;
}

bool execBuffer(ExecCtx &c, const Inst &In) {
  MemOp m;
  if (!classify(In.Operation, m))
    return false;
  if (m.Kind == Kind::Nop)
    return true; // cache write-back / invalidate: memory is coherent here
  const bool IsLoad = m.Kind == Kind::Load || m.Kind == Kind::LoadFormat;
  if ((IsLoad && In.Dst == kNoOperand) || (!IsLoad && In.Data0 == kNoOperand))
    return false;
  WaveState &w = c.W;
  const uint64_t Exec = w.exec();
  if (Exec == 0)
    return true;
  MubufOperands Mo;
  if (!readMubufOperands(c, In, Mo))
    return false;
  // The commonest access on a short path: raw dwords with every active lane inside num_records
  // and the allocation, copied with no per-lane test.
  RawDwords f;
  uint32_t *Rows[4];
  const bool Raw = rawDwords(c, In, m, Mo, Exec, f, Rows);
  if (Raw && f.allInside(Exec, m.N)) {
    byDwords(m.N, m.Kind == Kind::Load, [&](auto N, auto L) {
      f.template copyAll<decltype(N)::value, decltype(L)::value>(c, Exec, Rows);
    });
    return true;
  }
  const char *What = opNameLower(In.Operation);
  const BufferRsrc &r = Mo.R;
  const uint64_t Soff = Mo.Soff;
  const uint32_t *VIdx = Mo.VIdx, *VOff = Mo.VOff;
  BufferAddr Ba{r, Soff, VIdx, VOff, uint32_t(In.Offset) & 0xfffu, r.AddTid && !In.Idxen};

  if (m.Kind == Kind::Load || m.Kind == Kind::Store) {
    const unsigned Bytes = shapeBytes(m);
    const unsigned Cs = Bytes < 4 ? Bytes : 4; // range-checked per dword
    const unsigned Comps = Bytes / Cs;
    const bool Load = m.Kind == Kind::Load;
    auto LaneAccess = [&](unsigned Lane) {
      uint8_t Buf[16] = {};
      if (!Load)
        readStore(w, In.Data0, Lane, m.Shape, m.N, Buf);
      uint64_t Idx = Ba.index(Lane), o = Ba.offset(Lane);
      uint64_t a;
      // Whole access in range and contiguous: one translation.
      if (!r.Swizzle && Ba.resolve(Idx, o, Bytes, a)) {
        uint8_t *p = globalAccess(c, a, Bytes, int(Lane), What);
        if (Load)
          std::memcpy(Buf, p, Bytes);
        else
          std::memcpy(p, Buf, Bytes);
      } else {
        for (unsigned k = 0; k < Comps; ++k) {
          if (!Ba.resolve(Idx, o + k * Cs, Cs, a))
            continue; // out of range: reads 0, writes dropped
          uint8_t *p = globalAccess(c, a, Cs, int(Lane), What);
          if (Load)
            std::memcpy(Buf + k * Cs, p, Cs);
          else
            std::memcpy(p, Buf + k * Cs, Cs);
        }
      }
      if (Load)
        writeLoad(w, In.Dst, Lane, m.Shape, m.N, Buf);
    };
    // Raw dwords with some lane outside: the lanes inside are copied directly, the others take
    // laneAccess, which gives the same result (zeros, dropped writes, or the fault).
    if (Raw) {
      bool Ran = false;
      byDwords(m.N, Load, [&](auto N, auto L) {
        Ran = f.template run<decltype(N)::value, decltype(L)::value>(Exec, Rows, LaneAccess);
      });
      return Ran;
    }
    forEachLane(Exec, LaneAccess);
    return true;
  }

  if (m.Kind == Kind::Atomic) {
    const bool Ret = returnsPreOp(In);
    const unsigned Size = m.Is64 ? 8 : 4;
    forEachLane(Exec, [&](unsigned Lane) {
      uint64_t a;
      if (!Ba.resolve(Ba.index(Lane), Ba.offset(Lane), Size, a)) {
        if (Ret) { // dropped; the returned value reads as 0
          w.vrowOf(In.Dst)[Lane] = 0;
          if (m.Is64)
            w.vrow(vectorIndex(In.Dst) + 1)[Lane] = 0;
        }
        return;
      }
      atomicLane(c, In, m, Lane, globalAccess(c, a, Size, int(Lane), What), a, Ret);
    });
    return true;
  }

  // Format loads/stores: MTBUF takes the format from the instruction, MUBUF from the V#.
  const unsigned Dfmt = In.Encoding == Enc::MTBUF ? In.Dfmt : r.Dfmt;
  const unsigned Nfmt = In.Encoding == Enc::MTBUF ? In.Nfmt : r.Nfmt;
  const FmtInfo Fi = formatInfo(Dfmt);
  if (Fi.Comps == 0)
    return false;
  const unsigned ChBytes = Fi.Bits / 8u, ElemBytes = Fi.Comps * ChBytes;
  const bool Load = m.Kind == Kind::LoadFormat;
  if (Load ? !loadFormatSupported(Fi.Bits, Nfmt, m.D16) : !storeFormatSupported(Fi.Bits, Nfmt))
    return false;
  const bool Fl = isFloatish(Nfmt);
  const unsigned Dst = vectorIndex(Load ? In.Dst : In.Data0);
  forEachLane(Exec, [&](unsigned Lane) {
    uint64_t a;
    uint8_t *p = nullptr;
    if (Ba.resolve(Ba.index(Lane), Ba.offset(Lane), ElemBytes, a))
      p = globalAccess(c, a, ElemBytes, int(Lane), What);
    if (Load) {
      uint32_t Ch[4] = {0, 0, 0, 0}; // 32-bit values, or 16-bit for d16
      const uint32_t One = m.D16 ? (Fl ? 0x3c00u : 1u) : (Fl ? 0x3f800000u : 1u);
      for (unsigned k = 0; k < 4; ++k) {
        if (k >= Fi.Comps) {
          Ch[k] = k == 3 ? One : 0;
          continue;
        }
        if (!p)
          continue;
        uint32_t Raw = 0;
        std::memcpy(&Raw, p + k * ChBytes, ChBytes);
        uint32_t v = decodeChannel(Raw, Fi.Bits, Nfmt);
        if (m.D16)
          v = Fl ? (Fi.Bits == 16 && Nfmt == NfFloat ? (Raw & 0xffffu) : f32ToF16(bitsToF32(v)))
                 : (v & 0xffffu);
        Ch[k] = v;
      }
      uint32_t Out[4];
      for (unsigned k = 0; k < 4; ++k) {
        unsigned Sel = r.dstSel(k);
        Out[k] = Sel >= 4 ? Ch[Sel - 4] : Sel == 1 ? One : 0;
      }
      if (!m.D16) {
        for (unsigned k = 0; k < m.N; ++k)
          w.vrow(Dst + k)[Lane] = Out[k];
      } else if (m.D16Hi) {
        uint32_t &d = w.vrow(Dst)[Lane];
        d = (d & 0xffffu) | (Out[0] << 16);
      } else {
        for (unsigned k = 0; k < m.N; ++k) {
          uint32_t &d = w.vrow(Dst + k / 2)[Lane];
          if (k & 1)
            d = (d & 0xffffu) | (Out[k] << 16);
          else
            d = (d & 0xffff0000u) | (Out[k] & 0xffffu);
        }
      }
    } else {
      if (!p)
        return; // out of range: dropped
      const unsigned Nc = m.N < Fi.Comps ? m.N : Fi.Comps;
      for (unsigned k = 0; k < Nc; ++k) {
        uint32_t Raw;
        if (!m.D16) {
          uint32_t v = w.vrow(Dst + k)[Lane];
          Raw = (Nfmt == NfFloat && Fi.Bits == 16) ? f32ToF16(bitsToF32(v)) : v;
        } else {
          uint32_t Reg = w.vrow(Dst + (m.D16Hi ? 0 : k / 2))[Lane];
          uint16_t h = uint16_t((m.D16Hi || (k & 1)) ? Reg >> 16 : Reg);
          // Widen the 16-bit value as the number format reads it.
          if (Nfmt == NfFloat)
            Raw = Fi.Bits == 16 ? h : f32ToBits(f16ToF32(h));
          else if (Nfmt == NfSint)
            Raw = uint32_t(int32_t(int16_t(h)));
          else
            Raw = h;
        }
        std::memcpy(p + k * ChBytes, &Raw, ChBytes);
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

DmaShape dmaShape(Op Op, Gfx g) {
  switch (Op) {
  case Op::BUFFER_LOAD_DWORD:
  case Op::GLOBAL_LOAD_LDS_DWORD:
  case Op::SCRATCH_LOAD_LDS_DWORD:
    return {4, 4, nullptr};
  case Op::BUFFER_LOAD_DWORDX3:
  case Op::GLOBAL_LOAD_LDS_DWORDX3:
  case Op::BUFFER_LOAD_DWORDX4:
  case Op::GLOBAL_LOAD_LDS_DWORDX4: {
    const bool x3 = Op == Op::BUFFER_LOAD_DWORDX3 || Op == Op::GLOBAL_LOAD_LDS_DWORDX3;
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

[[noreturn]] void dmaUnsupported(const ExecCtx &c, const Inst &In, const char *Why) {
  std::string m = opNameLower(In.Operation);
  if (In.Encoding == Enc::MUBUF)
    m += " lds";
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + m + " at pc " + hexText(c.InstPc) + ": " + Why,
                 c.InstPc);
}

// One lane's bytes for LDS: bounds-checked against the workgroup's allocation, traced, shown to
// the strict checks as a write, and kept pending in the wave until the load completes (vmcnt):
// the data lands late, as on hardware, not when the load issues.
void dmaLdsWrite(ExecCtx &c, uint64_t Addr, const uint8_t *Data, unsigned Size, unsigned Lane,
                 const char *What) {
  if (Addr + Size > c.Wg.Lds.size())
    throwMemoryFault(What, Addr, Size, int(Lane), c.InstPc,
                     "LDS address (M0 offset + instruction offset + lane slot) outside the "
                     "workgroup's " +
                         std::to_string(c.Wg.Lds.size()) + "-byte LDS allocation");
  if (c.Strict)
    strictLdsDmaWrite(c, Addr, Size, Data);
  if (c.Trace)
    traceAccess(c, Addr, Size, int(Lane), TraceSpace::Lds);
  WaveState::PendingLdsWrite p;
  p.Seq = c.W.VmemIssued;
  p.LdsAddr = uint32_t(Addr);
  p.Size = uint8_t(Size);
  std::memcpy(p.Bytes, Data, Size);
  c.W.PendingLds.push_back(p);
}

bool execLdsDma(ExecCtx &c, const Inst &In) {
  if (In.Encoding == Enc::MTBUF)
    return false;
  const DmaShape Sh = dmaShape(In.Operation, c.Target);
  if (!Sh.Bytes)
    dmaUnsupported(c, In, Sh.Why);
  WaveState &w = c.W;
  const uint64_t Exec = w.exec();
  if (Exec == 0)
    return true;
  const uint32_t m0 = w.S[kM0];
  const char *What = opNameLower(In.Operation);
  const unsigned Dwords = Sh.Bytes / 4;

  if (In.Encoding == Enc::MUBUF) {
    MubufOperands Mo;
    if (!readMubufOperands(c, In, Mo))
      return false;
    const uint64_t LdsBase = m0 & (c.Target == Gfx::Gfx950 ? 0x3ffffu : 0xffffu);
    const uint32_t InstOffset = uint32_t(In.Offset) & 0xfffu;
    BufferAddr Ba{Mo.R, Mo.Soff, Mo.VIdx, Mo.VOff, InstOffset, Mo.R.AddTid && !In.Idxen};
    forEachLane(Exec, [&](unsigned Lane) {
      uint8_t Buf[16] = {};
      const uint64_t Idx = Ba.index(Lane), o = Ba.offset(Lane);
      for (unsigned k = 0; k < Dwords; ++k) {
        uint64_t a;
        if (Ba.resolve(Idx, o + 4 * k, 4, a)) // out of range: the dword reads as 0
          std::memcpy(Buf + 4 * k, globalAccess(c, a, 4, int(Lane), What), 4);
      }
      dmaLdsWrite(c, LdsBase + InstOffset + uint64_t(Lane) * Sh.Stride, Buf, Sh.Bytes, Lane, What);
    });
    return true;
  }

  // GLOBAL / SCRATCH load_lds: addressed as the plain load.
  const int64_t Off = In.Offset;
  const uint64_t LdsBase = uint64_t(m0 & 0x3fffcu) + uint64_t(Off);
  uint64_t Sbase = 0;
  uint32_t SOff32 = 0;
  if (In.Encoding == Enc::GLOBAL && In.Saddr != kNoOperand)
    Sbase = readScalar64(w, In, In.Saddr, OpType::B64);
  if (In.Encoding == Enc::SCRATCH && In.Saddr != kNoOperand)
    SOff32 = readScalar32(w, In, In.Saddr, OpType::B32);
  const uint32_t *VOff = In.Addr != kNoOperand ? w.vrowOf(In.Addr) : nullptr;
  const uint32_t *VHi = In.Addr != kNoOperand && vectorIndex(In.Addr) + 1 < kNumVectorRegs
                            ? w.vrow(vectorIndex(In.Addr) + 1)
                            : nullptr;
  if (In.Encoding == Enc::GLOBAL && In.Saddr == kNoOperand && (!VOff || !VHi))
    return false;
  if (In.Encoding != Enc::GLOBAL && In.Encoding != Enc::SCRATCH)
    return false;
  forEachLane(Exec, [&](unsigned Lane) {
    const uint8_t *p;
    if (In.Encoding == Enc::GLOBAL) {
      uint64_t a = In.Saddr != kNoOperand
                       ? Sbase + uint64_t(VOff ? VOff[Lane] : 0u) + uint64_t(Off)
                       : (uint64_t(VOff[Lane]) | (uint64_t(VHi[Lane]) << 32)) + uint64_t(Off);
      p = globalAccess(c, a, Sh.Bytes, int(Lane), What);
    } else {
      p = privateAccess(c, uint32_t(SOff32 + (VOff ? VOff[Lane] : 0u) + uint32_t(Off)), Sh.Bytes,
                        int(Lane), What);
    }
    dmaLdsWrite(c, LdsBase + uint64_t(Lane) * Sh.Stride, p, Sh.Bytes, Lane, What);
  });
  return true;
}

} // namespace

void landLdsWrites(ExecCtx &c, unsigned Vmcnt) {
  WaveState &w = c.W;
  if (w.PendingLds.empty())
    return;
  const uint64_t Done = w.VmemIssued > Vmcnt ? w.VmemIssued - Vmcnt : 0;
  size_t Kept = 0;
  for (size_t i = 0; i < w.PendingLds.size(); ++i) {
    const WaveState::PendingLdsWrite &p = w.PendingLds[i];
    if (p.Seq <= Done)
      std::memcpy(c.Wg.Lds.data() + p.LdsAddr, p.Bytes, p.Size);
    else
      w.PendingLds[Kept++] = p;
  }
  w.PendingLds.resize(Kept);
}

bool execVmem(ExecCtx &c, const Inst &In) {
  ++c.W.VmemIssued;
  if (In.Lds)
    return execLdsDma(c, In);
  switch (In.Encoding) {
  case Enc::FLAT:
  case Enc::GLOBAL:
  case Enc::SCRATCH:
    return execFlatFamily(c, In);
  case Enc::MUBUF:
  case Enc::MTBUF:
    return execBuffer(c, In);
  default:
    return false;
  }
}

} // namespace asmevo::emu
