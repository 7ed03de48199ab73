// The one type table of a launch: the element types of buffers and by-value arguments, their
// names in specs and options ("f16", "i32", ...), sizes and kinds.
#pragma once

#include <optional>
#include <string>

namespace asmevo::launch {

enum class ElemType { F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bytes };

// Every name, for messages.
constexpr const char *kTypeList = "f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bytes";

bool parseElemType(const std::string &S, ElemType &T);
const char *elemTypeName(ElemType T);
unsigned elemSize(ElemType T); // 1 for bytes
bool isFloatType(ElemType T);
bool isSignedType(ElemType T);

// The element type a HIP/OpenCL pointer's .type_name implies ("float*", "const half*", ...).
std::optional<ElemType> typeFromTypeName(std::string S);

} // namespace asmevo::launch
