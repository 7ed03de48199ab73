#include "launch/ElemType.h"

#include <cstring>
#include <iterator>
#include <utility>

namespace asmevo::launch {

namespace {

struct TypeInfo {
  const char *Name;
  ElemType T;
  unsigned Size;
  bool Float, Signed;
};
constexpr TypeInfo kTypes[] = {
    {"f16", ElemType::F16, 2, true, true},
    {"bf16", ElemType::BF16, 2, true, true},
    {"f32", ElemType::F32, 4, true, true},
    {"f64", ElemType::F64, 8, true, true},
    {"i8", ElemType::I8, 1, false, true},
    {"i16", ElemType::I16, 2, false, true},
    {"i32", ElemType::I32, 4, false, true},
    {"i64", ElemType::I64, 8, false, true},
    {"u8", ElemType::U8, 1, false, false},
    {"u16", ElemType::U16, 2, false, false},
    {"u32", ElemType::U32, 4, false, false},
    {"u64", ElemType::U64, 8, false, false},
    {"f8e4m3fn", ElemType::F8E4M3FN, 1, true, true},
    {"f8e5m2", ElemType::F8E5M2, 1, true, true},
    {"f8e4m3fnuz", ElemType::F8E4M3FNUZ, 1, true, true},
    {"f8e5m2fnuz", ElemType::F8E5M2FNUZ, 1, true, true},
    {"e8m0", ElemType::E8M0, 1, true, false},
    // Two values per byte: compared byte-exact, as the packed bytes.
    {"f4e2m1x2", ElemType::F4E2M1X2, 1, false, false},
    {"bytes", ElemType::Bytes, 1, false, false},
};
static_assert(std::size(kTypes) == size_t(ElemType::Bytes) + 1, "one row per ElemType, in order");
const TypeInfo &info(ElemType T) { return kTypes[unsigned(T)]; }

} // namespace

// The element type a HIP/OpenCL .type_name implies ("float*", "const half*", ...).
std::optional<ElemType> typeFromTypeName(std::string S) {
  auto strip = [&](const char *W) {
    for (size_t P; (P = S.find(W)) != std::string::npos;)
      S.erase(P, std::strlen(W));
  };
  strip("const");
  strip("__restrict__");
  strip("restrict");
  strip(" ");
  if (S.empty() || S.back() != '*')
    return std::nullopt;
  S.pop_back();
  static const std::pair<const char *, ElemType> Map[] = {
      {"float", ElemType::F32},       {"double", ElemType::F64},
      {"half", ElemType::F16},        {"_Float16", ElemType::F16},
      {"__half", ElemType::F16},      {"__bf16", ElemType::BF16},
      {"bfloat16", ElemType::BF16},   {"int", ElemType::I32},
      {"int32_t", ElemType::I32},     {"unsignedint", ElemType::U32},
      {"uint", ElemType::U32},        {"uint32_t", ElemType::U32},
      {"char", ElemType::I8},         {"int8_t", ElemType::I8},
      {"unsignedchar", ElemType::U8}, {"uchar", ElemType::U8},
      {"uint8_t", ElemType::U8},      {"short", ElemType::I16},
      {"int16_t", ElemType::I16},     {"unsignedshort", ElemType::U16},
      {"ushort", ElemType::U16},      {"uint16_t", ElemType::U16},
      {"long", ElemType::I64},        {"longlong", ElemType::I64},
      {"int64_t", ElemType::I64},     {"unsignedlong", ElemType::U64},
      {"ulong", ElemType::U64},       {"uint64_t", ElemType::U64},
      {"size_t", ElemType::U64},
  };
  for (const auto &[N, T] : Map)
    if (S == N)
      return T;
  return std::nullopt;
}

bool parseElemType(const std::string &S, ElemType &T) {
  for (const TypeInfo &I : kTypes)
    if (S == I.Name) {
      T = I.T;
      return true;
    }
  return false;
}
const char *elemTypeName(ElemType T) { return info(T).Name; }
unsigned elemSize(ElemType T) { return info(T).Size; }
bool isFloatType(ElemType T) { return info(T).Float; }
bool isSignedType(ElemType T) { return info(T).Signed; }
std::optional<SmallFormat> smallFormatOf(ElemType T) {
  switch (T) {
  case ElemType::F8E4M3FN:
    return SmallFormat::E4M3;
  case ElemType::F8E5M2:
    return SmallFormat::E5M2;
  case ElemType::F8E4M3FNUZ:
    return SmallFormat::E4M3Fnuz;
  case ElemType::F8E5M2FNUZ:
    return SmallFormat::E5M2Fnuz;
  default:
    return std::nullopt;
  }
}
bool isNarrowFloatType(ElemType T) {
  return T == ElemType::F8E4M3FN || T == ElemType::F8E5M2 || T == ElemType::F8E4M3FNUZ ||
         T == ElemType::F8E5M2FNUZ || T == ElemType::E8M0 || T == ElemType::F4E2M1X2;
}

} // namespace asmevo::launch
