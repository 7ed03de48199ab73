#include "check/LaunchSpec.h"

#include "device/LaunchGeometry.h"
#include "emu/Float.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace asmevo::check {

namespace {

struct TypeInfo {
  const char *Name;
  ElemType T;
  unsigned Size;
  bool Float, Signed;
};
constexpr TypeInfo kTypes[] = {
    {"f16", ElemType::F16, 2, true, true},       {"bf16", ElemType::BF16, 2, true, true},
    {"f32", ElemType::F32, 4, true, true},       {"f64", ElemType::F64, 8, true, true},
    {"i8", ElemType::I8, 1, false, true},        {"i16", ElemType::I16, 2, false, true},
    {"i32", ElemType::I32, 4, false, true},      {"i64", ElemType::I64, 8, false, true},
    {"u8", ElemType::U8, 1, false, false},       {"u16", ElemType::U16, 2, false, false},
    {"u32", ElemType::U32, 4, false, false},     {"u64", ElemType::U64, 8, false, false},
    {"bytes", ElemType::Bytes, 1, false, false},
};
const TypeInfo &info(ElemType T) { return kTypes[unsigned(T)]; }

const char *const kTypeList = "f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bytes";

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

bool parseDimsJson(const nlohmann::json &J, std::array<uint32_t, 3> &D) {
  if (!J.is_array() || J.empty() || J.size() > 3)
    return false;
  D = {1, 1, 1};
  for (size_t I = 0; I < J.size(); ++I) {
    if (!J[I].is_number_integer() && !J[I].is_number_unsigned())
      return false;
    int64_t V = J[I].get<int64_t>();
    if (V < 1 || V > 0xffffffffll)
      return false;
    D[I] = uint32_t(V);
  }
  return true;
}

// Encode a by-value argument's "value" as Size bytes of Type (empty: from the value and size).
llvm::Expected<std::vector<uint8_t>> encodeValue(const nlohmann::json &V, std::string Type,
                                                 uint32_t Size, const std::string &Where) {
  auto bad = [&](const std::string &Why) { return makeError(Where + Why); };
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
        return bad("\"value\": hex: needs exactly " + std::to_string(2 * Size) + " hex digits");
      for (uint32_t K = 0; K < Size; ++K) {
        char *End = nullptr;
        std::string Byte = H.substr(2 * K, 2);
        B[K] = uint8_t(std::strtoul(Byte.c_str(), &End, 16));
        if (!End || *End)
          return bad("\"value\": '" + S + "': not hex digits");
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
      return bad("\"value\": '" + S + "' is not a number");
  } else {
    return bad("\"value\" must be a number or a string");
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
               "' for a value (f16 bf16 f32 f64 i8 i16 i32 i64 u8 "
               "u16 u32 u64)");
  if (elemSize(T) != Size)
    return bad("type " + Type + " has " + std::to_string(elemSize(T)) +
               " bytes; the argument has " + std::to_string(Size));
  if (isFloatType(T)) {
    if (T == ElemType::F64) {
      std::memcpy(B.data(), &D, 8);
    } else if (T == ElemType::F32) {
      float F = float(D);
      std::memcpy(B.data(), &F, 4);
    } else {
      uint16_t H = T == ElemType::F16 ? emu::f32ToF16(float(D)) : emu::f32ToBf16(float(D));
      std::memcpy(B.data(), &H, 2);
    }
    return B;
  }
  if (!Integer || (IsFloatText && D != std::floor(D)))
    return bad("\"value\" " + V.dump() + " is not an integer (type " + Type + ")");
  unsigned Bits = 8 * Size;
  bool Fits;
  if (isSignedType(T))
    Fits = Bits == 64 ? (!Unsigned || U >> 63 == 0)
                      : (I >= -(int64_t(1) << (Bits - 1)) && I < (int64_t(1) << (Bits - 1)) &&
                         !(Unsigned && U >> 63));
  else
    Fits = !(!Unsigned && I < 0) && (Bits == 64 || U >> Bits == 0);
  if (!Fits)
    return bad("\"value\" " + V.dump() + " does not fit in " + Type);
  std::memcpy(B.data(), &U, Size);
  return B;
}

} // namespace

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

const char *roleName(Role R) {
  switch (R) {
  case Role::In:
    return "in";
  case Role::Out:
    return "out";
  case Role::InOut:
    return "inout";
  default:
    return "";
  }
}

std::array<uint32_t, 3> LaunchSpec::gridItems() const {
  return GridItems; // checked and computed by parseLaunchSpec (launchGridItems)
}

std::vector<uint8_t> LaunchSpec::kernarg(const std::vector<uint64_t> &Addr) const {
  std::vector<uint8_t> K(Sig.KernargSize, 0);
  for (size_t I = 0; I < Args.size(); ++I) {
    const ArgSpec &A = Args[I];
    if (A.Buffer) {
      uint64_t P = A.Null || I >= Addr.size() ? 0 : Addr[I];
      std::memcpy(&K[A.Offset], &P, std::min<uint32_t>(A.Size, 8));
    } else {
      std::memcpy(&K[A.Offset], A.ValueBytes.data(), A.ValueBytes.size());
    }
  }
  return K;
}

bool LaunchSpec::needsInference() const {
  for (const ArgSpec &A : Args)
    if (A.Buffer && !A.Null && (!A.Elements || A.R == Role::Unset))
      return true;
  return false;
}

nlohmann::json LaunchSpec::toJson() const {
  nlohmann::json J = nlohmann::json::object();
  J["kernel"] = Kernel;
  if (HasGridItems)
    J["grid_items"] = GridItems;
  else
    J["grid"] = Grid;
  J["block"] = Block;
  J["dynamic_lds"] = DynamicLds;
  nlohmann::json Args_ = nlohmann::json::array();
  for (const ArgSpec &A : Args) {
    nlohmann::json E = nlohmann::json::object();
    E["arg"] = A.Arg;
    if (!A.Buffer) {
      if (!A.ScalarType.empty())
        E["type"] = A.ScalarType;
      E["value"] = A.Value;
    } else if (A.Null) {
      E["value"] = "null";
    } else {
      E["type"] = elemTypeName(A.Type);
      if (A.Elements)
        E["elements"] = *A.Elements;
      if (A.R != Role::Unset)
        E["role"] = roleName(A.R);
      if (A.Range)
        E["range"] = {A.Range->first, A.Range->second};
      if (!A.File.empty())
        E["file"] = A.File;
      if (!A.Fill.empty())
        E["fill"] = A.Fill;
    }
    Args_.push_back(E);
  }
  J["args"] = Args_;
  return J;
}

llvm::Expected<LaunchSpec> parseLaunchSpec(llvm::StringRef Text, const std::string &Path) {
  auto err = [&](const std::string &Msg) { return withFile(makeError(Msg), Path); };
  nlohmann::json J;
  try {
    J = nlohmann::json::parse(Text.begin(), Text.end());
  } catch (const nlohmann::json::exception &E) {
    std::string W = E.what();
    auto P = W.find("] ");
    return err("not valid JSON: " + (P == std::string::npos ? W : W.substr(P + 2)));
  }
  if (!J.is_object())
    return err("a launch spec is a JSON object");
  LaunchSpec S;
  S.Path = Path;
  S.Dir = Path.empty() ? "." : llvm::sys::path::parent_path(Path).str();
  if (S.Dir.empty())
    S.Dir = ".";
  static const std::set<std::string> TopKeys = {"kernel",      "grid", "grid_items", "block",
                                                "dynamic_lds", "args", "comment"};
  for (auto It = J.begin(); It != J.end(); ++It)
    if (!TopKeys.count(It.key()))
      return err("unknown key '" + It.key() +
                 "' (kernel, grid, grid_items, block, dynamic_lds, args, comment)");
  if (J.contains("kernel")) {
    if (!J["kernel"].is_string())
      return err("\"kernel\" must be a string");
    S.Kernel = J["kernel"].get<std::string>();
  }
  S.HasGrid = J.contains("grid");
  S.HasGridItems = J.contains("grid_items");
  if (S.HasGrid && S.HasGridItems)
    return err("give \"grid\" or \"grid_items\", not both");
  if (!S.HasGrid && !S.HasGridItems)
    return err("no grid: give \"grid\" (workgroups) or \"grid_items\" (work-items)");
  const char *GridKey = S.HasGrid ? "grid" : "grid_items";
  if (!parseDimsJson(J[GridKey], S.HasGrid ? S.Grid : S.GridItems))
    return err(std::string("\"") + GridKey + "\": expected an array of 1 to 3 positive integers");
  if (!J.contains("block"))
    return err("no \"block\": give the workgroup size, e.g. [256, 1, 1]");
  if (!parseDimsJson(J["block"], S.Block))
    return err("\"block\": expected an array of 1 to 3 positive integers");
  {
    const auto &G = S.HasGrid ? S.Grid : S.GridItems;
    auto Items = device::launchGridItems({G[0], G[1], G[2]}, S.HasGrid, S.Block);
    if (!Items)
      return err(llvm::toString(Items.takeError()));
    S.GridItems = *Items;
  }
  if (J.contains("dynamic_lds")) {
    const auto &L = J["dynamic_lds"];
    if (!L.is_number_integer() || L.get<int64_t>() < 0 || L.get<int64_t>() > 0xffffffffll)
      return err("\"dynamic_lds\": expected a byte count");
    S.DynamicLds = uint32_t(L.get<int64_t>());
  }
  if (!J.contains("args") || !J["args"].is_array())
    return err("\"args\" must be an array with one entry per explicit kernel argument");
  static const std::set<std::string> ArgKeys = {"arg",  "type", "elements", "role",   "range",
                                                "file", "fill", "value",    "comment"};
  unsigned N = 0;
  for (const auto &E : J["args"]) {
    std::string Where = "args[" + std::to_string(N) + "]: ";
    if (!E.is_object())
      return err(Where + "expected an object");
    for (auto It = E.begin(); It != E.end(); ++It)
      if (!ArgKeys.count(It.key()))
        return err(Where + "unknown key '" + It.key() +
                   "' (arg, type, elements, role, range, file, fill, value, comment)");
    if (!E.contains("arg") || !E["arg"].is_string() || E["arg"].get<std::string>().empty())
      return err(Where + "\"arg\" is missing (a metadata name or #N)");
    ArgSpec A;
    A.Entry = N;
    A.Arg = E["arg"].get<std::string>();
    if (E.contains("type")) {
      if (!E["type"].is_string() || !parseElemType(E["type"].get<std::string>(), A.Type))
        return err(Where + "unknown type " + E["type"].dump() + " (" + kTypeList + ")");
      A.TypeGiven = true;
      A.ScalarType = E["type"].get<std::string>();
    }
    if (E.contains("elements")) {
      const auto &X = E["elements"];
      if (!(X.is_number_integer() || X.is_number_unsigned()) || X.get<int64_t>() < 0)
        return err(Where + "\"elements\" must be a non-negative integer");
      A.Elements = X.get<uint64_t>();
    }
    if (E.contains("role")) {
      std::string R = E["role"].is_string() ? E["role"].get<std::string>() : "";
      if (R == "in")
        A.R = Role::In;
      else if (R == "out")
        A.R = Role::Out;
      else if (R == "inout")
        A.R = Role::InOut;
      else
        return err(Where + "\"role\" must be \"in\", \"out\" or \"inout\"");
    }
    if (E.contains("range")) {
      const auto &X = E["range"];
      if (!X.is_array() || X.size() != 2 || !X[0].is_number() || !X[1].is_number() ||
          X[0].get<double>() > X[1].get<double>())
        return err(Where + "\"range\" must be [lo, hi] with lo <= hi");
      A.Range = std::pair{X[0].get<double>(), X[1].get<double>()};
    }
    if (E.contains("file")) {
      if (!E["file"].is_string() || E["file"].get<std::string>().empty())
        return err(Where + "\"file\" must be a path");
      A.File = E["file"].get<std::string>();
      A.FilePath = llvm::sys::path::is_absolute(A.File) ? A.File : S.Dir + "/" + A.File;
    }
    if (E.contains("fill")) {
      std::string F = E["fill"].is_string() ? E["fill"].get<std::string>() : "";
      if (F != "zero" && F != "random")
        return err(Where + "\"fill\" must be \"zero\" or \"random\"");
      A.Fill = F;
    }
    if (!A.File.empty() && !A.Fill.empty())
      return err(Where + "give \"file\" or \"fill\", not both");
    if (E.contains("value"))
      A.Value = E["value"];
    S.Args.push_back(std::move(A));
    ++N;
  }
  return S;
}

llvm::Expected<LaunchSpec> readLaunchSpec(const std::string &Path) {
  auto F = readFile(Path);
  if (!F)
    return F.takeError();
  return parseLaunchSpec((*F)->getBuffer(), Path);
}

llvm::Error resolveLaunchSpec(LaunchSpec &S, const CodeObject &CO,
                              const std::string &KernelOverride) {
  auto err = [&](const std::string &Msg) { return withFile(makeError(Msg), S.Path); };
  std::string Want = KernelOverride.empty() ? S.Kernel : KernelOverride;
  const KernelInfo *K = nullptr;
  if (Want.empty()) {
    if (CO.Kernels.size() != 1)
      return err("'" + CO.Path + "' has " + std::to_string(CO.Kernels.size()) +
                 " kernels: name one with \"kernel\" or --kernel");
    K = &CO.Kernels[0];
  } else if (!(K = CO.kernel(Want))) {
    std::string Names;
    for (const KernelInfo &X : CO.Kernels)
      Names += (Names.empty() ? "" : ", ") + X.Name;
    return err("'" + CO.Path + "' has no kernel named '" + Want + "' (kernels: " + Names + ")");
  }
  S.Kernel = K->Name;
  auto Sig = kernelSignature(CO, *K);
  if (!Sig)
    return Sig.takeError();
  S.Sig = *Sig;
  auto Explicit = S.Sig.explicitArgs();
  std::vector<int> Owner(Explicit.size(), -1);
  for (ArgSpec &A : S.Args) {
    std::string Where = "args[" + std::to_string(A.Entry) + "]: ";
    int Idx = -1;
    if (A.Arg[0] == '#') {
      char *End = nullptr;
      long V = std::strtol(A.Arg.c_str() + 1, &End, 10);
      if (A.Arg.size() > 1 && End && !*End && V >= 0 && size_t(V) < Explicit.size())
        Idx = int(V);
    } else {
      for (size_t I = 0; I < Explicit.size(); ++I)
        if (Explicit[I]->Name == A.Arg)
          Idx = int(I);
    }
    if (Idx < 0)
      return err(Where + "kernel '" + S.Kernel + "' has no argument '" + A.Arg + "' (it has " +
                 std::to_string(Explicit.size()) + " explicit arguments, #0 to #" +
                 std::to_string(Explicit.size() ? Explicit.size() - 1 : 0) + ")");
    if (Owner[Idx] >= 0)
      return err(Where + "argument '" + A.Arg + "' is already given by args[" +
                 std::to_string(Owner[Idx]) + "]");
    Owner[Idx] = int(A.Entry);
    const KernelArg &M = *Explicit[Idx];
    A.Index = unsigned(Idx);
    A.Label = M.Name.empty() ? "#" + std::to_string(Idx) : M.Name;
    A.ValueKind = M.ValueKind;
    A.Offset = M.Offset;
    A.Size = M.Size;
    A.Buffer = M.ValueKind == "global_buffer";
    if (A.Buffer) {
      if (!A.Value.is_null()) {
        bool IsNull = (A.Value.is_string() && A.Value.get<std::string>() == "null") ||
                      (A.Value.is_number_integer() && A.Value.get<int64_t>() == 0);
        if (!IsNull)
          return err(Where + "'" + A.Arg + "' is a buffer: its \"value\" can only be \"null\"");
        A.Null = true;
        continue;
      }
      if (!A.TypeGiven) {
        auto T = typeFromTypeName(M.TypeName);
        if (!T)
          return err(Where + "buffer argument '" + A.Arg + "' needs \"type\" (" + kTypeList + ")");
        A.Type = *T;
      }
      if (!A.FilePath.empty()) {
        auto F = readFile(A.FilePath);
        if (!F)
          return F.takeError();
        uint64_t Bytes = (*F)->getBufferSize();
        unsigned ES = elemSize(A.Type);
        if (Bytes % ES)
          return err(Where + "file '" + A.File + "' has " + std::to_string(Bytes) +
                     " bytes, not a whole number of " + elemTypeName(A.Type) + " elements");
        if (A.Elements && *A.Elements != Bytes / ES)
          return err(Where + "file '" + A.File + "' holds " + std::to_string(Bytes / ES) +
                     " elements; \"elements\" says " + std::to_string(*A.Elements));
        A.Elements = Bytes / ES;
      }
    } else {
      if (A.Elements || A.R != Role::Unset || A.Range || !A.File.empty() || !A.Fill.empty())
        return err(Where + "'" + A.Arg + "' is passed by value (" + M.ValueKind +
                   "): give only \"value\" (and \"type\")");
      if (A.Value.is_null())
        return err(Where + "by-value argument '" + A.Arg + "' needs \"value\"");
      auto B = encodeValue(A.Value, A.TypeGiven ? A.ScalarType : "", M.Size, Where);
      if (!B)
        return withFile(B.takeError(), S.Path);
      A.ValueBytes = std::move(*B);
    }
  }
  for (size_t I = 0; I < Explicit.size(); ++I)
    if (Owner[I] < 0) {
      const KernelArg &M = *Explicit[I];
      std::string L = "#" + std::to_string(I);
      return err("argument " + L + (M.Name.empty() ? "" : " ('" + M.Name + "')") + " (" +
                 M.ValueKind + ", offset " + std::to_string(M.Offset) + ", " +
                 std::to_string(M.Size) + " bytes) is not in the spec: add {\"arg\": \"" + L +
                 "\", ...}");
    }
  std::sort(S.Args.begin(), S.Args.end(),
            [](const ArgSpec &A, const ArgSpec &B) { return A.Index < B.Index; });
  // Sizes are bounded before anything is allocated (each buffer is generated, copied and
  // compared several times over).
  uint64_t Total = 0;
  for (const ArgSpec &A : S.Args) {
    if (!A.Buffer || A.Null || !A.Elements)
      continue;
    unsigned ES = elemSize(A.Type);
    std::string Name = A.Label == A.Arg ? "'" + A.Arg + "'" : "'" + A.Label + "' (" + A.Arg + ")";
    if (*A.Elements > kMaxSpecBytes / ES)
      return err("argument " + Name + ": " + std::to_string(*A.Elements) + " " +
                 elemTypeName(A.Type) + " elements are more than the " +
                 std::to_string(kMaxSpecBytes >> 30) + " GiB a launch spec's buffers may hold");
    Total += *A.Elements * ES;
    if (Total > kMaxSpecBytes)
      return err("argument " + Name + ": the buffers up to it hold " + std::to_string(Total) +
                 " bytes, more than the " + std::to_string(kMaxSpecBytes >> 30) +
                 " GiB a launch spec's buffers may hold");
  }
  return llvm::Error::success();
}

} // namespace asmevo::check
