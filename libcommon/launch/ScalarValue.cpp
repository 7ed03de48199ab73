#include "launch/ScalarValue.h"

#include "launch/ElemType.h"
#include "support/Error.h"
#include "support/Float.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace asmevo::launch {

llvm::Expected<std::vector<uint8_t>> encodeScalar(const nlohmann::json &V, std::string Type,
                                                  uint32_t Size) {
  auto bad = [&](const std::string &Why) { return makeError(Why); };
  std::vector<uint8_t> B(Size, 0);
  bool IsFloatText = false;
  double D = 0;
  int64_t I = 0;
  uint64_t U = 0;
  bool Integer = false, Unsigned = false;
  if (V.is_number_unsigned()) {
    U = V.get<uint64_t>();
    I = int64_t(U);
    D = double(U);
    Integer = Unsigned = true;
  } else if (V.is_number_integer()) {
    I = V.get<int64_t>();
    U = uint64_t(I);
    D = double(I);
    Integer = true;
  } else if (V.is_number_float()) {
    D = V.get<double>();
    IsFloatText = true;
  } else if (V.is_string()) {
    std::string S = V.get<std::string>();
    if (S.rfind("hex:", 0) == 0) {
      std::string H = S.substr(4);
      if (H.size() != 2 * size_t(Size))
        return bad("hex: needs exactly " + std::to_string(2 * Size) + " hex digits");
      for (uint32_t K = 0; K < Size; ++K) {
        char *End = nullptr;
        std::string Byte = H.substr(2 * K, 2);
        B[K] = uint8_t(std::strtoul(Byte.c_str(), &End, 16));
        if (!End || *End)
          return bad("'" + S + "': not hex digits");
      }
      return B;
    }
    errno = 0;
    char *End = nullptr;
    if (S.find_first_of(".eEnN") != std::string::npos && S.rfind("0x", 0) != 0) {
      D = std::strtod(S.c_str(), &End);
      IsFloatText = true;
    } else if (!S.empty() && S[0] == '-') {
      I = std::strtoll(S.c_str(), &End, 0);
      U = uint64_t(I);
      D = double(I);
      Integer = true;
    } else {
      U = std::strtoull(S.c_str(), &End, 0);
      I = int64_t(U);
      D = double(U);
      Integer = Unsigned = true;
    }
    if (S.empty() || !End || *End || errno)
      return bad("'" + S + "' is not a number");
  } else {
    return bad("must be a number or a string");
  }
  if (Type.empty())
    Type = IsFloatText ? (Size == 8   ? "f64"
                          : Size == 2 ? "f16"
                                      : "f32")
                       : (Size == 1   ? "i8"
                          : Size == 2 ? "i16"
                          : Size == 8 ? "i64"
                                      : "i32");
  ElemType T;
  if (!parseElemType(Type, T) || T == ElemType::Bytes)
    return bad("unknown type '" + Type +
               "' (f16 bf16 f32 f64 i8 i16 i32 i64 u8 "
               "u16 u32 u64)");
  if (isNarrowFloatType(T))
    return bad("type " + Type + " is a buffer element type; a by-value argument cannot have it");
  if (elemSize(T) != Size)
    return bad("type " + Type + " has " + std::to_string(elemSize(T)) +
               " bytes; the argument has " + std::to_string(Size));
  if (isFloatType(T)) {
    // A finite number that rounds to infinity in its type is a mistake, not an infinity: say so
    // ("inf" is written as such).
    auto TooBig = [&](double Got) {
      char Buf[64];
      std::snprintf(Buf, sizeof Buf, "%g", D);
      return bad(std::string(Buf) + " does not fit " + Type + " (it would become " +
                 (Got > 0 ? "+inf" : "-inf") + "; write \"inf\" for an infinity)");
    };
    if (T == ElemType::F64) {
      std::memcpy(B.data(), &D, 8);
    } else if (T == ElemType::F32) {
      float F = float(D);
      if (std::isfinite(D) && std::isinf(F))
        return TooBig(F);
      std::memcpy(B.data(), &F, 4);
    } else {
      float F = float(D);
      uint16_t H = T == ElemType::F16 ? f32ToF16(F) : f32ToBf16(F);
      float Back = T == ElemType::F16 ? f16ToF32(H) : bf16ToF32(H);
      if (std::isfinite(D) && std::isinf(Back))
        return TooBig(Back);
      std::memcpy(B.data(), &H, 2);
    }
    return B;
  }
  if (!Integer || (IsFloatText && D != std::floor(D)))
    return bad(V.dump() + " is not an integer (type " + Type + ")");
  unsigned Bits = 8 * Size;
  bool Fits;
  if (isSignedType(T))
    Fits = Bits == 64 ? (!Unsigned || U >> 63 == 0)
                      : (I >= -(int64_t(1) << (Bits - 1)) && I < (int64_t(1) << (Bits - 1)) &&
                         !(Unsigned && U >> 63));
  else
    Fits = !(!Unsigned && I < 0) && (Bits == 64 || U >> Bits == 0);
  if (!Fits)
    return bad(V.dump() + " does not fit in " + Type);
  std::memcpy(B.data(), &U, Size);
  return B;
}

} // namespace asmevo::launch
