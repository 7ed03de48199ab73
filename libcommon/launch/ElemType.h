// The one type table of a launch: the element types of buffers and by-value arguments, their
// names in specs and options ("f16", "i32", ...), sizes and kinds.
#pragma once

#include "support/SmallFloat.h"

#include <optional>
#include <string>

namespace asmevo::launch {

// The narrow float types of fp8 and MX kernels (one byte each, buffers only): F8E4M3FN and
// F8E5M2 are OCP fp8 (gfx950), F8E4M3FNUZ and F8E5M2FNUZ the FNUZ fp8 of gfx940..942, E8M0 the
// MX scale 2^(e - 127), F4E2M1X2 two OCP fp4 values per byte (element 2j in the low nibble).
// Their encodings are support/SmallFloat.h's.
enum class ElemType {
  F16,
  BF16,
  F32,
  F64,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F8E4M3FN,
  F8E5M2,
  F8E4M3FNUZ,
  F8E5M2FNUZ,
  E8M0,
  F4E2M1X2,
  Bytes
};

// Every name, for messages.
constexpr const char *kTypeList = "f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 f8e4m3fn f8e5m2 "
                                  "f8e4m3fnuz f8e5m2fnuz e8m0 f4e2m1x2 bytes";

bool parseElemType(const std::string &S, ElemType &T);
const char *elemTypeName(ElemType T);
unsigned elemSize(ElemType T); // 1 for bytes
bool isFloatType(ElemType T);
bool isSignedType(ElemType T);
// The one-byte float types above: buffer elements only, never a by-value argument.
bool isNarrowFloatType(ElemType T);
// The fp8 types' encoding in support/SmallFloat.h; none for every other type (E8M0 included).
std::optional<SmallFormat> smallFormatOf(ElemType T);

// The element type a HIP/OpenCL pointer's .type_name implies ("float*", "const half*", ...).
std::optional<ElemType> typeFromTypeName(std::string S);

} // namespace asmevo::launch
