// launch/: the one scalar encoder, the one binder, kernel-run's --arg text and the launch
// spec's format, version and K0 hash; values checked byte by byte, errors by exact message.
#include "codeobj/Input.h"
#include "launch/ArgBinding.h"
#include "launch/ArgText.h"
#include "launch/EdgeShape.h"
#include "launch/LaunchSpec.h"
#include "launch/ScalarValue.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <fstream>

using namespace asmevo;
using namespace asmevo::launch;

namespace {

std::string triton(const char *Arch, const char *Name) {
  return std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/" + Arch + "/" + Name + ".hsaco";
}

std::vector<uint8_t> bytes(std::initializer_list<int> L) {
  std::vector<uint8_t> B;
  for (int X : L)
    B.push_back(uint8_t(X));
  return B;
}

std::string encodeError(const nlohmann::json &V, const std::string &Type, uint32_t Size) {
  auto B = encodeScalar(V, Type, Size);
  if (B)
    return "(encoded)";
  return llvm::toString(B.takeError());
}

TEST(ScalarValue, NumbersTextAndHexEncodeExactly) {
  EXPECT_EQ(llvm::cantFail(encodeScalar(3000, "", 4)), bytes({0xb8, 0x0b, 0, 0}));
  EXPECT_EQ(llvm::cantFail(encodeScalar("-1", "", 2)), bytes({0xff, 0xff}));
  EXPECT_EQ(llvm::cantFail(encodeScalar("0x10", "u64", 8)), bytes({0x10, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(llvm::cantFail(encodeScalar("1.5", "", 4)), bytes({0, 0, 0xc0, 0x3f}));
  EXPECT_EQ(llvm::cantFail(encodeScalar(1.0, "f16", 2)), bytes({0x00, 0x3c}));
  EXPECT_EQ(llvm::cantFail(encodeScalar(1.0, "bf16", 2)), bytes({0x80, 0x3f}));
  EXPECT_EQ(llvm::cantFail(encodeScalar("hex:0a0b0c0d", "", 4)), bytes({10, 11, 12, 13}));
  auto NaN = llvm::cantFail(encodeScalar("NaN", "", 4));
  uint32_t Bits;
  std::memcpy(&Bits, NaN.data(), 4);
  EXPECT_EQ(Bits & 0x7f800000u, 0x7f800000u);
  EXPECT_NE(Bits & 0x007fffffu, 0u);
}

TEST(ScalarValue, ErrorsSayWhatIsWrongWithTheValue) {
  EXPECT_EQ(encodeError(3000000000ll, "i32", 4), "3000000000 does not fit in i32");
  EXPECT_EQ(encodeError(1.5, "i32", 4), "1.5 is not an integer (type i32)");
  EXPECT_EQ(encodeError("1.5x", "", 4), "'1.5x' is not a number");
  EXPECT_EQ(encodeError("hex:0a", "", 4), "hex: needs exactly 8 hex digits");
  EXPECT_EQ(encodeError(nlohmann::json::array(), "", 4), "must be a number or a string");
  EXPECT_EQ(encodeError(1, "i64", 4), "type i64 has 8 bytes; the argument has 4");
  EXPECT_EQ(encodeError(1, "f8", 1),
            "unknown type 'f8' (f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64)");
  EXPECT_EQ(encodeError(-1, "u32", 4), "-1 does not fit in u32");
  EXPECT_EQ(encodeError(1, "f8e4m3fn", 1),
            "type f8e4m3fn is a buffer element type; a by-value argument cannot have it");
  EXPECT_EQ(encodeError(1, "e8m0", 1),
            "type e8m0 is a buffer element type; a by-value argument cannot have it");
}

TEST(ArgBinding, KernelsAndArgumentReferences) {
  auto O = openCodeObject(triton("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  const CodeObject &C = (*O)->C;
  EXPECT_EQ(llvm::cantFail(chooseKernel(C, "", "--kernel"))->Name, "add_kernel");
  EXPECT_EQ(llvm::cantFail(chooseKernel(C, "add_kernel", "--kernel"))->Name, "add_kernel");
  auto Bad = chooseKernel(C, "sub", "--kernel");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "'" + triton("gfx942", "vector_add_fp32") +
                "' has no kernel named 'sub' (kernels: add_kernel)");
  auto Sig = llvm::cantFail(kernelSignature(C, C.Kernels[0]));
  auto Ex = Sig.explicitArgs();
  ASSERT_EQ(Ex.size(), 6u);
  EXPECT_EQ(findExplicitArg(Ex, "#3"), 3);
  EXPECT_EQ(findExplicitArg(Ex, "#6"), -1);
  EXPECT_EQ(findExplicitArg(Ex, "#"), -1);
  EXPECT_EQ(findExplicitArg(Ex, "#1x"), -1);
  EXPECT_EQ(findExplicitArg(Ex, Ex[2]->Name), Ex[2]->Name.empty() ? -1 : 2);
  EXPECT_EQ(argLabel(Ex, 3), Ex[3]->Name.empty() ? "#3" : Ex[3]->Name);
}

TEST(ArgText, BindsInOrderAndByNameAndRefusesWhatDoesNotFit) {
  auto O = openCodeObject(triton("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(bool(O));
  const CodeObject &C = (*O)->C;
  auto Sig = llvm::cantFail(kernelSignature(C, C.Kernels[0]));
  auto texts = [](std::initializer_list<const char *> L) {
    std::vector<ArgText> V;
    for (const char *T : L)
      V.push_back(llvm::cantFail(parseArgText(T)));
    return V;
  };
  auto B = bindArgTexts(
      Sig, "add_kernel",
      texts({"zeros:64", "zeros:64", "#2=zeros:128", "i32:16", "null", "addr:0x1000"}));
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  ASSERT_EQ(B->Buffers.size(), 3u);
  EXPECT_EQ(B->Buffers[2].Size, 128u);
  auto Ex = Sig.explicitArgs();
  int32_t N;
  std::memcpy(&N, &B->Kernarg[Ex[3]->Offset], 4);
  EXPECT_EQ(N, 16);
  uint64_t A;
  std::memcpy(&A, &B->Kernarg[Ex[5]->Offset], 8);
  EXPECT_EQ(A, 0x1000u);
  auto err = [&](std::initializer_list<const char *> L) {
    auto R = bindArgTexts(Sig, "add_kernel", texts(L));
    return R ? std::string("(bound)") : llvm::toString(R.takeError());
  };
  EXPECT_EQ(err({"#0=null", "#0=null"}), "argument '#0' is given twice");
  EXPECT_EQ(err({"null", "null", "null", "1", "null"}),
            "argument '#5' (global_buffer, offset 40) has no value: add --arg #5=...");
  EXPECT_EQ(err({"null", "null", "null", "1", "null", "null", "null"}),
            "more --arg values than kernel 'add_kernel' has explicit arguments (6)");
  EXPECT_EQ(err({"5", "null", "null", "1", "null", "null"}),
            "argument '#0' is a pointer: give @FILE, zeros:BYTES, table:BUF+BUF..., null or "
            "addr:ADDRESS, not '5'");
  EXPECT_EQ(err({"null", "null", "null", "1.5x", "null", "null"}),
            "argument '#3': '1.5x' is not a number");
  EXPECT_EQ(err({"#9=1"}),
            "kernel 'add_kernel' has no argument '#9': its metadata names none of its 6 explicit "
            "arguments (a Triton kernel's never does), so name them by index: #0 global_buffer "
            "(8 bytes), #1 global_buffer (8 bytes), #2 global_buffer (8 bytes), #3 by_value (4 "
            "bytes), #4 global_buffer (8 bytes; Triton's global_scratch pointer), #5 "
            "global_buffer (8 bytes; Triton's profile_scratch pointer)");
  auto Empty = parseArgText("n=");
  ASSERT_FALSE(bool(Empty));
  EXPECT_EQ(llvm::toString(Empty.takeError()), "--arg 'n=': empty value");
}

TEST(LaunchSpec, FormatVersionAndTheK0ItWasWrittenFor) {
  std::string K = triton("gfx942", "vector_add_fp32");
  auto O = openCodeObject(K);
  ASSERT_TRUE(bool(O));
  std::string Hash = sha256Hex((*O)->C.Bytes);
  const std::string Args = R"("grid": [3], "block": [256], "args": [{"arg": "#0", "type": "f32"},
    {"arg": "#1", "type": "f32"}, {"arg": "#2", "type": "f32"}, {"arg": "#3", "value": 3000},
    {"arg": "#4", "value": "null"}, {"arg": "#5", "value": "null"}])";
  auto resolve = [&](const std::string &Head) {
    auto S = parseLaunchSpec("{" + Head + Args + "}", "s.json");
    if (!S)
      return llvm::toString(S.takeError());
    if (llvm::Error E = resolveLaunchSpec(*S, (*O)->C))
      return llvm::toString(std::move(E));
    return S->toJson().dump();
  };
  std::string Ok = resolve(R"("format": "asmevo-launch-spec", "format_version": 1, )"
                           R"("k0_sha256": ")" +
                           Hash + "\", ");
  EXPECT_NE(Ok.find("\"format\":\"asmevo-launch-spec\""), std::string::npos) << Ok;
  EXPECT_NE(Ok.find("\"format_version\":1"), std::string::npos) << Ok;
  EXPECT_NE(Ok.find("\"k0_sha256\":\"" + Hash + "\""), std::string::npos) << Ok;
  EXPECT_EQ(resolve(R"("format": "other", )"),
            "'s.json': \"format\" is \"other\", not \"asmevo-launch-spec\": not a launch spec");
  EXPECT_EQ(resolve(R"("format_version": 2, )"),
            "'s.json': \"format_version\" is 2; this tool reads 1");
  EXPECT_EQ(resolve(R"("k0_sha256": "abc", )"),
            "'s.json': \"k0_sha256\" must be 64 lower-case hex digits");
  std::string Other(64, '0');
  EXPECT_EQ(resolve(R"("k0_sha256": ")" + Other + "\", "),
            "'s.json': written for the K0 with SHA-256 " + Other + ", not for '" + K +
                "' (SHA-256 " + Hash + "): infer a spec for this K0, or remove \"k0_sha256\"");
}

KernelSignature signature(std::initializer_list<std::pair<const char *, const char *>> Args) {
  KernelSignature S;
  S.Symbol = "k";
  uint32_t Off = 0;
  for (auto [Name, Kind] : Args) {
    KernelArg A;
    A.Name = Name;
    A.ValueKind = Kind;
    A.Size = std::string(Kind) == "by_value" ? 4 : 8;
    A.Offset = Off;
    Off += 8;
    S.Args.push_back(A);
  }
  S.KernargSize = Off;
  return S;
}

TEST(ArgBinding, AnUnknownArgumentListsWhatTheKernelTakes) {
  EXPECT_EQ(noSuchArgument(signature({{"a", "global_buffer"}, {"", "by_value"}}), "b"),
            "kernel 'k' has no argument 'b' (its explicit arguments: #0 'a', #1)");
  EXPECT_EQ(noSuchArgument(signature({}), "#0"),
            "kernel 'k' has no argument '#0' (it takes no explicit arguments)");
  // No names, no hidden arguments, two trailing pointers: shaped like Triton's, with a doubt.
  auto T = signature(
      {{"", "global_buffer"}, {"", "by_value"}, {"", "global_buffer"}, {"", "global_buffer"}});
  EXPECT_EQ(noSuchArgument(T, "x"),
            "kernel 'k' has no argument 'x': its metadata names none of its 4 explicit arguments, "
            "so name them by index: #0 global_buffer (8 bytes), #1 by_value (4 bytes), #2 "
            "global_buffer (8 bytes; Triton's global_scratch pointer, if Triton compiled it), #3 "
            "global_buffer (8 bytes; Triton's profile_scratch pointer, if Triton compiled it)");
  T.Triton = true;
  EXPECT_EQ(noSuchArgument(T, "x"),
            "kernel 'k' has no argument 'x': its metadata names none of its 4 explicit arguments "
            "(a Triton kernel's never does), so name them by index: #0 global_buffer (8 bytes), "
            "#1 by_value (4 bytes), #2 global_buffer (8 bytes; Triton's global_scratch pointer), "
            "#3 global_buffer (8 bytes; Triton's profile_scratch pointer)");
  // Hidden arguments (clang's code object v5 launches): not Triton's shape.
  auto C = signature({{"", "global_buffer"}, {"", "global_buffer"}, {"", "hidden_block_count_x"}});
  EXPECT_EQ(noSuchArgument(C, "x"),
            "kernel 'k' has no argument 'x': its metadata names none of its 2 explicit arguments, "
            "so name them by index: #0 global_buffer (8 bytes), #1 global_buffer (8 bytes)");
  // The corpus's Triton object says so in its DWARF.
  auto O = openCodeObject(triton("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(bool(O));
  EXPECT_TRUE(producedByTriton((*O)->C));
  EXPECT_TRUE(llvm::cantFail(kernelSignature((*O)->C, (*O)->C.Kernels[0])).Triton);
}

// A fresh directory under the system's temporary folder, its symbolic links resolved.
std::string tempDir() {
  llvm::SmallString<128> D, Real;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("launch-spec-test", D));
  EXPECT_FALSE(llvm::sys::fs::real_path(D, Real));
  return std::string(Real);
}

TEST(LaunchSpec, FileEntriesAreRewrittenForWhereTheSpecGoes) {
  std::string Root = tempDir();
  ASSERT_FALSE(llvm::sys::fs::create_directories(Root + "/a/data"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(Root + "/b/c"));
  ASSERT_FALSE(llvm::sys::fs::create_link(Root + "/b/c", Root + "/link"));
  std::ofstream(Root + "/a/data/x.bin") << "0123";
  std::string Abs = Root + "/a/data/x.bin";
  auto S = parseLaunchSpec(R"({"grid": [1], "block": [1], "args": [{"arg": "#0", "file": )"
                           R"("data/x.bin"}, {"arg": "#1", "file": ")" +
                               Abs + R"("}]})",
                           Root + "/a/partial.json");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  auto at = [&](const std::string &Out) {
    LaunchSpec C = *S;
    if (llvm::Error E = relocateSpecFiles(C, Out))
      return llvm::toString(std::move(E));
    return C.Args[0].File + " " + C.Args[1].File;
  };
  EXPECT_EQ(at(Root + "/a/partial.json"), "data/x.bin " + Abs);
  EXPECT_EQ(at(Root + "/b/c/full.json"), "../../a/data/x.bin " + Abs);
  // Through a symbolic link to b/c: relative to where the spec really lands.
  EXPECT_EQ(at(Root + "/link/full.json"), "../../a/data/x.bin " + Abs);
  EXPECT_EQ(at(Root + "/a/data/full.json"), "x.bin " + Abs);
  EXPECT_EQ(at("-"), Abs + " " + Abs);
  EXPECT_EQ(at(Root + "/none/full.json"),
            "'" + Root + "/none/full.json': cannot resolve its folder: No such file or directory");
  llvm::sys::fs::remove_directories(Root);
}

TEST(LaunchSpec, TextThatJsonCannotHoldIsAnErrorNotACrash) {
  LaunchSpec S;
  S.Kernel = "add_k\xffrnel";
  auto T = launchSpecText(S);
  ASSERT_FALSE(bool(T));
  EXPECT_EQ(llvm::toString(T.takeError()),
            "the kernel's name 'add_k\\FFrnel' is not valid UTF-8, which a JSON launch spec cannot "
            "hold");
  S.Kernel = "k";
  S.Path = "s.json";
  ArgSpec A;
  A.Buffer = true;
  A.File = "dir\xc3/x.bin";
  S.Args.push_back(A);
  T = launchSpecText(S);
  ASSERT_FALSE(bool(T));
  EXPECT_EQ(llvm::toString(T.takeError()),
            "'s.json': args[0]: the path of \"file\" 'dir\\C3/x.bin' is not valid UTF-8, which a "
            "JSON launch spec cannot hold");
  S.Args[0].File = "x.bin";
  T = launchSpecText(S);
  ASSERT_TRUE(bool(T));
  EXPECT_NE(T->find("\"file\": \"x.bin\""), std::string::npos) << *T;
}

// Edge shapes: every by-value integer >= 2 one smaller (its bytes too), the grid cut to one
// workgroup; nothing for floats, 0, 1, negative values, or a grid of one workgroup.
TEST(EdgeShape, TailAndOneWorkgroupFromTheSpec) {
  auto O = openCodeObject(triton("gfx942", "layernorm_fwd_fp16"));
  ASSERT_TRUE(bool(O));
  auto shapes = [&](const std::string &Grid, const std::string &Values) {
    auto S = parseLaunchSpec(R"({"kernel": "layer_norm_fwd_kernel", )" + Grid +
                                 R"(, "block": [256], "dynamic_lds": 16, "args": [
      {"arg": "#0", "type": "f16"}, {"arg": "#1", "type": "f16"}, {"arg": "#2", "type": "f16"},
      {"arg": "#3", "type": "f16"}, {"arg": "#4", "type": "f32"}, {"arg": "#5", "type": "f32"}, )" +
                                 Values + R"(, {"arg": "#9", "value": "null"},
      {"arg": "#10", "value": "null"}]})",
                             "s.json");
    EXPECT_TRUE(bool(S));
    EXPECT_FALSE(bool(resolveLaunchSpec(*S, (*O)->C)));
    return std::make_pair(*S, edgeShapes(*S));
  };
  auto [S, E] = shapes(R"("grid": [3])", R"({"arg": "#6", "value": 1008},
      {"arg": "#7", "value": 1000}, {"arg": "#8", "type": "f32", "value": 1e-5})");
  ASSERT_EQ(E.size(), 4u);
  EXPECT_EQ(E[0].Name, "tail-1");
  EXPECT_EQ(E[0].Change, "'#6' 1008 -> 1007, '#7' 1000 -> 999");
  EXPECT_EQ(E[2].Name, "tail-3");
  EXPECT_EQ(E[2].Change, "'#6' 1008 -> 1005, '#7' 1000 -> 997");
  uint32_t V6 = 0, V7 = 0;
  std::memcpy(&V6, E[1].Spec.Args[6].ValueBytes.data(), 4);
  std::memcpy(&V7, E[1].Spec.Args[7].ValueBytes.data(), 4);
  EXPECT_EQ(V6, 1006u);
  EXPECT_EQ(V7, 998u);
  EXPECT_EQ(E[1].Spec.Args[7].Value, 998);
  EXPECT_EQ(E[0].Spec.Args[8].ValueBytes, S.Args[8].ValueBytes); // the float eps stays
  EXPECT_EQ(E[0].Spec.GridItems, S.GridItems);
  EXPECT_EQ(E[0].Spec.Args[0].Elements, S.Args[0].Elements); // buffers as they are
  EXPECT_EQ(E[3].Name, "one-workgroup");
  EXPECT_EQ(E[3].Change, "grid 3x1x1 -> 1x1x1");
  EXPECT_EQ(E[3].Spec.GridItems, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(E[3].Spec.Args[7].ValueBytes, S.Args[7].ValueBytes);
  // 0, 1, a negative value: no tail; one workgroup already: no one-workgroup shape.
  auto [S2, E2] = shapes(R"("grid": [1])", R"({"arg": "#6", "value": 1}, {"arg": "#7", "value": -5},
      {"arg": "#8", "type": "f32", "value": 2})");
  EXPECT_TRUE(E2.empty());
  // An integer "type" given as text counts; grid_items keep their partial workgroup.
  auto [S3, E3] = shapes(R"("grid_items": [300])", R"({"arg": "#6", "value": 0},
      {"arg": "#7", "type": "i32", "value": "0x10"}, {"arg": "#8", "type": "f32", "value": 2})");
  ASSERT_EQ(E3.size(), 4u);
  EXPECT_EQ(E3[0].Change, "'#7' 16 -> 15");
  EXPECT_EQ(E3[2].Change, "'#7' 16 -> 13");
  EXPECT_EQ(E3[3].Change, "grid_items 300x1x1 -> 256x1x1");
  // Never below 1: a 2 stays 1 in tail-2 and tail-3.
  auto [S4, E4] = shapes(R"("grid": [1])", R"({"arg": "#6", "value": 2}, {"arg": "#7", "value": 1},
      {"arg": "#8", "type": "f32", "value": 2})");
  ASSERT_EQ(E4.size(), 3u);
  EXPECT_EQ(E4[2].Change, "'#6' 2 -> 1");
}

} // namespace
