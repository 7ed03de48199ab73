// Vector ALU: compares (VOPC and their VOP3 forms). The result mask goes to in.sdst with zero
// bits for inactive lanes; v_cmpx_* also writes EXEC.
//
// Each lane computes a one-hot relation code (L=1 less, E=2 equal, G=4 greater, U=8 unordered);
// the op's condition is a 4-bit truth table over it, which for the ISA's opcode order is the
// condition's own index: F, LT, EQ, LE, GT, LG/NE, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU.
#include "emu/ExecVectorCore.h"

#include <array>
#include <cstring>

namespace asmevo::emu::vec {

u32 classBit32(u32 a);
u32 classBit16(u32 a);
u32 classBit64(u64 a);

namespace {

enum class CK : uint8_t { None, F16, F32, F64, I16, U16, I32, U32, I64, U64, C16, C32, C64 };
struct CmpInfo {
  CK Kind = CK::None;
  uint8_t Tt = 0;
  bool X = false;
};

std::array<CmpInfo, size_t(Op::Count)> buildTable() {
  std::array<CmpInfo, size_t(Op::Count)> t{};
  static const struct {
    const char *N;
    uint8_t Tt;
  } Conds[] = {{"F", 0},    {"LT", 1},   {"EQ", 2},   {"LE", 3},   {"GT", 4},   {"LG", 5},
               {"NE", 5},   {"GE", 6},   {"O", 7},    {"U", 8},    {"NGE", 9},  {"NLG", 10},
               {"NGT", 11}, {"NLE", 12}, {"NEQ", 13}, {"NLT", 14}, {"TRU", 15}, {"T", 15}};
  static const struct {
    const char *N;
    CK K;
  } Types[] = {{"F16", CK::F16}, {"F32", CK::F32}, {"F64", CK::F64},
               {"I16", CK::I16}, {"U16", CK::U16}, {"I32", CK::I32},
               {"U32", CK::U32}, {"I64", CK::I64}, {"U64", CK::U64}};
  for (size_t i = 0; i < size_t(Op::Count); ++i) {
    std::string n = opName(Op(i));
    bool IsX;
    if (n.rfind("V_CMP_", 0) == 0)
      IsX = false, n = n.substr(6);
    else if (n.rfind("V_CMPX_", 0) == 0)
      IsX = true, n = n.substr(7);
    else
      continue;
    if (n.size() > 4 &&
        (n.compare(n.size() - 4, 4, "_E32") == 0 || n.compare(n.size() - 4, 4, "_E64") == 0))
      n.resize(n.size() - 4);
    size_t Us = n.rfind('_');
    if (Us == std::string::npos)
      continue;
    std::string c = n.substr(0, Us), Ty = n.substr(Us + 1);
    CK k = CK::None;
    for (auto &e : Types)
      if (Ty == e.N)
        k = e.K;
    if (k == CK::None)
      continue;
    CmpInfo Info;
    Info.X = IsX;
    if (c == "CLASS") {
      if (k != CK::F16 && k != CK::F32 && k != CK::F64)
        continue;
      Info.Kind = k == CK::F16 ? CK::C16 : (k == CK::F32 ? CK::C32 : CK::C64);
      Info.Tt = 1;
    } else {
      bool Found = false;
      for (auto &e : Conds)
        if (c == e.N)
          Info.Tt = e.Tt, Found = true;
      if (!Found)
        continue;
      Info.Kind = k;
    }
    t[i] = Info;
  }
  return t;
}

const std::array<CmpInfo, size_t(Op::Count)> &table() {
  static const std::array<CmpInfo, size_t(Op::Count)> t = buildTable();
  return t;
}

// The relation code of two values: L=1 less, E=2 equal, G=4 greater, U=8 unordered (a NaN;
// never for integers).
template <class V> inline unsigned rel(V a, V b) {
  return unsigned(a < b) | (unsigned(a == b) << 1) | (unsigned(a > b) << 2) |
         (unsigned(a != a || b != b) << 3);
}

// The lanes' results packed into a mask. Both operands are converted by cv to the compare's type;
// a lane's bit is the condition's truth table tt at their relation code. For a condition without
// U (TT 1..6, a template argument) the code's bits are written out as the comparisons they stand
// for, which the compiler turns into one or two vector compares.
template <unsigned TT, class V, class Cv>
u64 relLanes(const V *a, const V *b, unsigned Tt, Cv Conv) {
  alignas(64) u8 Bits[kWaveSize];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const auto p = Conv(a[l]), q = Conv(b[l]);
    if (TT)
      Bits[l] = u8(((TT & 1) && p < q) | ((TT & 2) && p == q) | ((TT & 4) && p > q));
    else
      Bits[l] = (rel(p, q) & Tt) != 0;
  }
  return packLaneBits(Bits);
}
template <class V, class Cv> u64 relLanesAnyTt(const V *a, const V *b, unsigned Tt, Cv Conv) {
  switch (Tt) {
  case 1:
    return relLanes<1>(a, b, Tt, Conv);
  case 2:
    return relLanes<2>(a, b, Tt, Conv);
  case 3:
    return relLanes<3>(a, b, Tt, Conv);
  case 4:
    return relLanes<4>(a, b, Tt, Conv);
  case 5:
    return relLanes<5>(a, b, Tt, Conv);
  case 6:
    return relLanes<6>(a, b, Tt, Conv);
  default:
    return relLanes<0>(a, b, Tt, Conv);
  }
}
// v_cmp_class: fn gives each lane's bit.
template <class V, class Fn> u64 bitLanes(const V *a, const V *b, Fn LaneBit) {
  alignas(64) u8 Bits[kWaveSize];
  for (unsigned l = 0; l < kWaveSize; ++l)
    Bits[l] = LaneBit(a[l], b[l]) != 0;
  return packLaneBits(Bits);
}

} // namespace

bool plainCompare32(Op Op, Compare32 &Type, unsigned &Tt) {
  const CmpInfo &Ci = table()[size_t(Op)];
  if (Ci.X || (Ci.Kind != CK::I32 && Ci.Kind != CK::U32 && Ci.Kind != CK::F32))
    return false;
  Type = Ci.Kind == CK::I32 ? Compare32::I32 : Ci.Kind == CK::U32 ? Compare32::U32 : Compare32::F32;
  Tt = Ci.Tt;
  return true;
}

u64 compareLanes32(Compare32 Type, unsigned Tt, const u32 *a, const u32 *b) {
  switch (Type) {
  case Compare32::I32:
    return relLanesAnyTt(a, b, Tt, [](u32 v) { return i32(v); });
  case Compare32::U32:
    return relLanesAnyTt(a, b, Tt, [](u32 v) { return v; });
  case Compare32::F32:
    break;
  }
  return relLanesAnyTt(a, b, Tt, [](u32 v) { return F(v); });
}

bool execVectorCompare(VX &x) {
  const CmpInfo &Ci = table()[size_t(x.In.Operation)];
  if (Ci.Kind == CK::None)
    return false;
  unsigned Tt = Ci.Tt;
  u64 m = 0;
  // v_cmp_class classifies the operand's bits: a denormal reads as a denormal whatever the
  // MODE denormal fields say (ordinary float compares see flushed inputs; fetch32/fetch64).
  if (Ci.Kind == CK::C16 || Ci.Kind == CK::C32 || Ci.Kind == CK::C64)
    x.FtzIn = 0;
  switch (Ci.Kind) {
  case CK::F16:
    m = relLanesAnyTt(fetch32(x, 0, Ty::F16), fetch32(x, 1, Ty::F16), Tt,
                      [](u32 v) { return H(v); });
    break;
  case CK::F32:
    m = compareLanes32(Compare32::F32, Tt, fetch32(x, 0, Ty::F32), fetch32(x, 1, Ty::F32));
    break;
  case CK::F64:
    m = relLanesAnyTt(fetch64(x, 0, Ty::F64), fetch64(x, 1, Ty::F64), Tt,
                      [](u64 v) { return D(v); });
    break;
  case CK::I16:
    m = relLanesAnyTt(fetch32(x, 0, Ty::B16), fetch32(x, 1, Ty::B16), Tt,
                      [](u32 v) { return i16(v); });
    break;
  case CK::U16:
    m = relLanesAnyTt(fetch32(x, 0, Ty::B16), fetch32(x, 1, Ty::B16), Tt,
                      [](u32 v) { return u16(v); });
    break;
  case CK::I32:
    m = compareLanes32(Compare32::I32, Tt, fetch32(x, 0, Ty::B32), fetch32(x, 1, Ty::B32));
    break;
  case CK::U32:
    m = compareLanes32(Compare32::U32, Tt, fetch32(x, 0, Ty::B32), fetch32(x, 1, Ty::B32));
    break;
  case CK::I64:
    m = relLanesAnyTt(fetch64(x, 0, Ty::B64), fetch64(x, 1, Ty::B64), Tt,
                      [](u64 v) { return i64(v); });
    break;
  case CK::U64:
    m = relLanesAnyTt(fetch64(x, 0, Ty::B64), fetch64(x, 1, Ty::B64), Tt, [](u64 v) { return v; });
    break;
  case CK::C16:
    m = bitLanes(fetch32(x, 0, Ty::F16), fetch32(x, 1, Ty::B32),
                 [](u32 a, u32 b) { return (b >> classBit16(a)) & 1; });
    break;
  case CK::C32:
    m = bitLanes(fetch32(x, 0, Ty::F32), fetch32(x, 1, Ty::B32),
                 [](u32 a, u32 b) { return (b >> classBit32(a)) & 1; });
    break;
  case CK::C64:
    m = bitLanes(fetch64(x, 0, Ty::F64), fetch64(x, 1, Ty::B32),
                 [](u64 a, u64 b) { return u32(b >> classBit64(a)) & 1; });
    break;
  case CK::None:
    return false;
  }
  m &= x.Exec;
  uint16_t Sdst = x.In.Sdst == kNoOperand ? uint16_t(kVccLo) : x.In.Sdst;
  writeMask(x, Sdst, m);
  if (Ci.X)
    x.W.setExec(m);
  return true;
}

} // namespace asmevo::emu::vec
