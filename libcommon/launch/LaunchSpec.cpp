#include "launch/LaunchSpec.h"

#include "launch/ArgBinding.h"
#include "launch/LaunchGeometry.h"
#include "launch/ScalarValue.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace asmevo::launch {

namespace {

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

// S as a message quotes bytes that may not be text: escaped (\FF).
std::string escaped(llvm::StringRef S) {
  std::string R;
  llvm::raw_string_ostream OS(R);
  llvm::printEscapedString(S, OS);
  return R;
}

// Path with its folder's symbolic links resolved (the file itself need not exist).
llvm::Expected<std::string> realFolderPath(llvm::StringRef Path) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  llvm::SmallString<256> Real;
  if (std::error_code EC = llvm::sys::fs::real_path(Dir.empty() ? "." : Dir, Real))
    return withFile(makeError("cannot resolve its folder: " + EC.message()), Path);
  llvm::sys::path::append(Real, llvm::sys::path::filename(Path));
  return std::string(Real);
}

// To, relative to the folder From (both absolute, without "." or ".." components).
std::string relativeTo(llvm::StringRef From, llvm::StringRef To) {
  llvm::SmallVector<llvm::StringRef, 16> F, T;
  for (auto It = llvm::sys::path::begin(From), E = llvm::sys::path::end(From); It != E; ++It)
    F.push_back(*It);
  for (auto It = llvm::sys::path::begin(To), E = llvm::sys::path::end(To); It != E; ++It)
    T.push_back(*It);
  size_t Common = 0;
  while (Common < F.size() && Common + 1 < T.size() && F[Common] == T[Common])
    ++Common;
  llvm::SmallString<256> R;
  for (size_t I = Common; I < F.size(); ++I)
    llvm::sys::path::append(R, "..");
  for (size_t I = Common; I < T.size(); ++I)
    llvm::sys::path::append(R, T[I]);
  return std::string(R);
}

} // namespace

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
  std::vector<uint8_t> K(explicitArgsEnd(Sig), 0);
  for (size_t I = 0; I < Args.size(); ++I) {
    const ArgSpec &A = Args[I];
    if (A.TableOf >= 0)
      continue; // a table's entry: its address is in the table, not the kernarg segment
    if (A.Buffer) {
      uint64_t P = A.Null || I >= Addr.size() ? 0 : Addr[I];
      std::memcpy(&K[A.Offset], &P, std::min<uint32_t>(A.Size, 8));
    } else {
      std::memcpy(&K[A.Offset], A.ValueBytes.data(), A.ValueBytes.size());
    }
  }
  return K;
}

std::string tableEntryName(const std::string &Table, size_t I) {
  return Table + "[" + std::to_string(I) + "]";
}

std::pair<std::string, int> splitTableEntryName(const std::string &Name) {
  size_t Open = Name.rfind('[');
  if (Open == std::string::npos || Name.back() != ']' || Open + 2 >= Name.size())
    return {Name, -1};
  std::string Digits = Name.substr(Open + 1, Name.size() - Open - 2);
  if (Digits.size() > 5 || Digits.find_first_not_of("0123456789") != std::string::npos)
    return {Name.substr(0, Open), -1};
  return {Name.substr(0, Open), std::stoi(Digits)};
}

std::vector<uint8_t> LaunchSpec::tableContents(size_t T, const std::vector<uint64_t> &Addr) const {
  std::vector<uint8_t> B(8 * Args[T].Table.size(), 0);
  for (size_t K = 0; K < Args[T].Table.size(); ++K) {
    unsigned E = Args[T].Table[K];
    uint64_t P = E < Addr.size() ? Addr[E] : 0;
    std::memcpy(B.data() + 8 * K, &P, 8);
  }
  return B;
}

void LaunchSpec::neutralizeTable(size_t T, const std::vector<uint64_t> &Addr, uint8_t *Data,
                                 uint64_t Bytes) const {
  std::vector<uint8_t> Placed = tableContents(T, Addr);
  for (uint64_t Off = 0; Off + 8 <= std::min<uint64_t>(Bytes, Placed.size()); Off += 8)
    if (std::memcmp(Data + Off, Placed.data() + Off, 8) == 0)
      std::memset(Data + Off, 0, 8);
}

bool LaunchSpec::needsInference() const {
  for (const ArgSpec &A : Args)
    if (A.Buffer && !A.Null && (!A.Elements || A.R == Role::Unset))
      return true;
  return false;
}

nlohmann::json LaunchSpec::toJson() const {
  nlohmann::json J = nlohmann::json::object();
  J["format"] = kLaunchSpecFormat;
  J["format_version"] = kLaunchSpecFormatVersion;
  if (!K0Sha256.empty())
    J["k0_sha256"] = K0Sha256;
  J["kernel"] = Kernel;
  if (HasGridItems)
    J["grid_items"] = GridItems;
  else
    J["grid"] = Grid;
  J["block"] = Block;
  J["dynamic_lds"] = DynamicLds;
  auto BufferJson = [](const ArgSpec &A, nlohmann::json &E) {
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
  };
  nlohmann::json Args_ = nlohmann::json::array();
  for (const ArgSpec &A : Args) {
    if (A.TableOf >= 0)
      continue; // written inside its table
    nlohmann::json E = nlohmann::json::object();
    E["arg"] = A.Arg;
    if (!A.Buffer) {
      if (!A.ScalarType.empty())
        E["type"] = A.ScalarType;
      E["value"] = A.Value;
    } else if (A.Null) {
      E["value"] = "null";
    } else if (A.isTable()) {
      E["table"] = nlohmann::json::array();
      size_t N = A.Table.empty() ? A.Entries.size() : A.Table.size(); // parsed, or resolved
      for (size_t K = 0; K < N; ++K) {
        nlohmann::json T = nlohmann::json::object();
        BufferJson(A.Table.empty() ? A.Entries[K] : Args[A.Table[K]], T);
        E["table"].push_back(T);
      }
    } else {
      BufferJson(A, E);
    }
    Args_.push_back(E);
  }
  J["args"] = Args_;
  return J;
}

// The buffer fields of a spec entry E ("type", "elements", "role", "range", "file", "fill")
// into A; an error text (after Where) or "". Dir: where a relative "file" is.
static std::string parseBufferFields(const nlohmann::json &E, ArgSpec &A, const std::string &Where,
                                     const std::string &Dir) {
  if (E.contains("type")) {
    if (!E["type"].is_string() || !parseElemType(E["type"].get<std::string>(), A.Type))
      return Where + "unknown type " + E["type"].dump() + " (" + kTypeList + ")";
    A.TypeGiven = true;
    A.ScalarType = E["type"].get<std::string>();
  }
  if (E.contains("elements")) {
    const auto &X = E["elements"];
    if (!(X.is_number_integer() || X.is_number_unsigned()) || X.get<int64_t>() < 0)
      return Where + "\"elements\" must be a non-negative integer";
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
      return Where + "\"role\" must be \"in\", \"out\" or \"inout\"";
  }
  if (E.contains("range")) {
    const auto &X = E["range"];
    if (!X.is_array() || X.size() != 2 || !X[0].is_number() || !X[1].is_number() ||
        X[0].get<double>() > X[1].get<double>())
      return Where + "\"range\" must be [lo, hi] with lo <= hi";
    A.Range = std::pair{X[0].get<double>(), X[1].get<double>()};
  }
  if (E.contains("file")) {
    if (!E["file"].is_string() || E["file"].get<std::string>().empty())
      return Where + "\"file\" must be a path";
    A.File = E["file"].get<std::string>();
    A.FilePath = llvm::sys::path::is_absolute(A.File) ? A.File : Dir + "/" + A.File;
  }
  if (E.contains("fill")) {
    std::string F = E["fill"].is_string() ? E["fill"].get<std::string>() : "";
    if (F != "zero" && F != "random")
      return Where + "\"fill\" must be \"zero\" or \"random\"";
    A.Fill = F;
  }
  if (!A.File.empty() && !A.Fill.empty())
    return Where + "give \"file\" or \"fill\", not both";
  return "";
}

llvm::Expected<LaunchSpec> parseLaunchSpec(llvm::StringRef Text, const std::string &Path) {
  auto err = [&](const std::string &Msg) { return withFile(makeError(Msg), Path); };
  // A UTF-8 byte order mark (some editors write one) is skipped. Other encodings and bytes that
  // are not UTF-8 are refused here, by line, so that no message quotes them (a report envelope
  // must be UTF-8).
  llvm::StringRef Body = Text;
  if (Body.starts_with("\xEF\xBB\xBF"))
    Body = Body.drop_front(3);
  else if (Body.starts_with("\xFF\xFE") || Body.starts_with("\xFE\xFF"))
    return err("begins with a UTF-16 or UTF-32 byte order mark: a launch spec is UTF-8 JSON");
  {
    // The first byte that is not UTF-8, or a NUL (UTF-16 without a byte order mark has them;
    // JSON text never does).
    const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Body.data()), *At = Begin;
    bool Utf8 = llvm::isLegalUTF8String(&At, Begin + Body.size());
    size_t Off = Utf8 ? Body.size() : size_t(At - Begin);
    size_t Nul = Body.take_front(Off).find('\0');
    if (Nul != llvm::StringRef::npos || !Utf8) {
      Off = Nul != llvm::StringRef::npos ? Nul : Off;
      llvm::StringRef Before = Body.take_front(Off);
      size_t LineStart = Before.rfind('\n');
      LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
      std::string What = Body[Off] ? "not valid UTF-8: byte " + hexText(uint8_t(Body[Off]))
                                   : std::string("a NUL byte");
      return lineError(Path, unsigned(Before.count('\n') + 1),
                       What + " at column " + std::to_string(Off - LineStart + 1) +
                           " (a launch spec is UTF-8 JSON)");
    }
  }
  nlohmann::json J;
  try {
    J = nlohmann::json::parse(Body.begin(), Body.end());
  } catch (const nlohmann::json::exception &E) {
    std::string W = E.what();
    auto P = W.find("] ");
    return err("not valid JSON: " + (P == std::string::npos ? W : W.substr(P + 2)));
  }
  if (!J.is_object())
    return err("a launch spec is a JSON object");
  LaunchSpec S;
  S.Text = Text.str();
  S.Path = Path;
  S.Dir = Path.empty() ? "." : llvm::sys::path::parent_path(Path).str();
  if (S.Dir.empty())
    S.Dir = ".";
  static const std::set<std::string> TopKeys = {
      "format",     "format_version", "k0_sha256",   "kernel", "grid",
      "grid_items", "block",          "dynamic_lds", "args",   "comment"};
  for (auto It = J.begin(); It != J.end(); ++It)
    if (!TopKeys.count(It.key()))
      return err("unknown key '" + It.key() +
                 "' (format, format_version, k0_sha256, kernel, grid, grid_items, block, "
                 "dynamic_lds, args, comment)");
  if (J.contains("format") && J["format"] != kLaunchSpecFormat)
    return err("\"format\" is " + J["format"].dump() + ", not \"" + kLaunchSpecFormat +
               "\": not a launch spec");
  if (J.contains("format_version") &&
      (!J["format_version"].is_number_integer() ||
       J["format_version"].get<int64_t>() != kLaunchSpecFormatVersion))
    return err("\"format_version\" is " + J["format_version"].dump() + "; this tool reads " +
               std::to_string(kLaunchSpecFormatVersion));
  if (J.contains("k0_sha256")) {
    const auto &H = J["k0_sha256"];
    if (!H.is_string() || H.get<std::string>().size() != 64 ||
        H.get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos)
      return err("\"k0_sha256\" must be 64 lower-case hex digits");
    S.K0Sha256 = H.get<std::string>();
  }
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
    auto Items = launchGridItems({G[0], G[1], G[2]}, S.HasGrid, S.Block);
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
  static const std::set<std::string> ArgKeys = {"arg",  "type", "elements", "role",  "range",
                                                "file", "fill", "value",    "table", "comment"};
  static const std::set<std::string> EntryKeys = {"type", "elements", "role",   "range",
                                                  "file", "fill",     "comment"};
  unsigned N = 0;
  for (const auto &E : J["args"]) {
    std::string Where = "args[" + std::to_string(N) + "]: ";
    if (!E.is_object())
      return err(Where + "expected an object");
    for (auto It = E.begin(); It != E.end(); ++It)
      if (!ArgKeys.count(It.key()))
        return err(Where + "unknown key '" + It.key() +
                   "' (arg, type, elements, role, range, file, fill, value, table, comment)");
    if (!E.contains("arg") || !E["arg"].is_string() || E["arg"].get<std::string>().empty())
      return err(Where + "\"arg\" is missing (a metadata name or #N)");
    ArgSpec A;
    A.Entry = N;
    A.Arg = E["arg"].get<std::string>();
    if (std::string Bad = parseBufferFields(E, A, Where, S.Dir); !Bad.empty())
      return err(Bad);
    if (E.contains("table")) {
      const auto &T = E["table"];
      if (!T.is_array() || T.empty())
        return err(Where + "\"table\" must be a non-empty array of buffers ({\"type\": ..., "
                           "\"elements\": ..., \"role\": ...}), one per address in the table");
      for (auto It = E.begin(); It != E.end(); ++It)
        if (It.key() != "arg" && It.key() != "table" && It.key() != "comment")
          return err(Where +
                     "a pointer table has only \"arg\" and \"table\" (its entries "
                     "say what each address points to), not '" +
                     It.key() + "'");
      for (size_t K = 0; K < T.size(); ++K) {
        std::string W = "args[" + std::to_string(N) + "].table[" + std::to_string(K) + "]: ";
        if (!T[K].is_object())
          return err(W + "expected an object (a buffer)");
        for (auto It = T[K].begin(); It != T[K].end(); ++It)
          if (!EntryKeys.count(It.key()))
            return err(W + "unknown key '" + It.key() +
                       "' (type, elements, role, range, file, fill, comment)");
        ArgSpec X;
        if (std::string Bad = parseBufferFields(T[K], X, W, S.Dir); !Bad.empty())
          return err(Bad);
        if (!X.TypeGiven)
          return err(W + "needs \"type\" (" + kTypeList + ")");
        X.Entry = N;
        X.Slot = unsigned(K);
        A.Entries.push_back(std::move(X));
      }
    }
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

// A buffer's "file": read, its size a whole number of elements (and "elements" if given), and
// A.Elements set from it; an error text (after Where) or "".
static std::string fileElements(ArgSpec &A, const std::string &Where) {
  if (A.FilePath.empty())
    return "";
  auto F = readFile(A.FilePath);
  if (!F) // the spec names it, relative to the spec's folder
    return Where + "\"file\" '" + A.File + "': " + llvm::toString(F.takeError());
  uint64_t Bytes = (*F)->getBufferSize();
  unsigned ES = elemSize(A.Type);
  if (Bytes % ES)
    return Where + "file '" + A.File + "' has " + std::to_string(Bytes) +
           " bytes, not a whole number of " + elemTypeName(A.Type) + " elements";
  if (A.Elements && *A.Elements != Bytes / ES)
    return Where + "file '" + A.File + "' holds " + std::to_string(Bytes / ES) +
           " elements; \"elements\" says " + std::to_string(*A.Elements);
  A.Elements = Bytes / ES;
  return "";
}

llvm::Error resolveLaunchSpec(LaunchSpec &S, const CodeObject &CO,
                              const std::string &KernelOverride) {
  auto err = [&](const std::string &Msg) { return withFile(makeError(Msg), S.Path); };
  if (!S.K0Sha256.empty()) {
    std::string Have = sha256Hex(CO.Bytes);
    if (Have != S.K0Sha256)
      return err("written for the K0 with SHA-256 " + S.K0Sha256 + ", not for '" + CO.Path +
                 "' (SHA-256 " + Have + "): infer a spec for this K0, or remove \"k0_sha256\"");
  }
  std::string Want = KernelOverride.empty() ? S.Kernel : KernelOverride;
  auto KOr = chooseKernel(CO, Want, "\"kernel\" or --kernel");
  if (!KOr)
    return withFile(KOr.takeError(), S.Path);
  const KernelInfo *K = *KOr;
  S.Kernel = K->Name;
  auto Sig = kernelSignature(CO, *K);
  if (!Sig)
    return Sig.takeError();
  S.Sig = *Sig;
  auto Explicit = S.Sig.explicitArgs();
  std::vector<int> Owner(Explicit.size(), -1);
  for (ArgSpec &A : S.Args) {
    std::string Where = "args[" + std::to_string(A.Entry) + "]: ";
    int Idx = findExplicitArg(Explicit, A.Arg);
    if (Idx < 0)
      return err(Where + noSuchArgument(S.Sig, A.Arg));
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
    A.Buffer = M.isGlobalBuffer();
    if (A.Buffer) {
      if (!A.Value.is_null()) {
        bool IsNull = (A.Value.is_string() && A.Value.get<std::string>() == "null") ||
                      (A.Value.is_number_integer() && A.Value.get<int64_t>() == 0);
        if (!IsNull)
          return err(Where + "'" + A.Arg + "' is a buffer: its \"value\" can only be \"null\"");
        A.Null = true;
        continue;
      }
      if (A.isTable()) {
        // A pointer table: one u64 address per entry, written when the launch is placed.
        A.Type = ElemType::U64;
        A.TypeGiven = true;
        A.Elements = A.Entries.size();
        A.R = Role::In;
        A.Fill = "zero";
        continue;
      }
      if (!A.TypeGiven) {
        auto T = typeFromTypeName(M.TypeName);
        if (!T)
          return err(Where + "buffer argument '" + A.Arg + "' needs \"type\" (" + kTypeList + ")");
        A.Type = *T;
      }
      if (std::string Bad = fileElements(A, Where); !Bad.empty())
        return err(Bad);
    } else {
      if (A.isTable())
        return err(Where + "'" + A.Arg + "' is passed by value (" + M.ValueKind +
                   "): only a buffer argument can be a pointer table");
      if (A.Elements || A.R != Role::Unset || A.Range || !A.File.empty() || !A.Fill.empty())
        return err(Where + "'" + A.Arg + "' is passed by value (" + M.ValueKind +
                   "): give only \"value\" (and \"type\")");
      if (A.Value.is_null())
        return err(Where + "by-value argument '" + A.Arg + "' needs \"value\"");
      auto B = encodeScalar(A.Value, A.TypeGiven ? A.ScalarType : "", M.Size);
      if (!B)
        return err(Where + "\"value\" " + llvm::toString(B.takeError()));
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
  // The pointer tables' entries, after every explicit argument.
  const size_t NumExplicit = S.Args.size();
  for (size_t T = 0; T < NumExplicit; ++T) {
    if (S.Args[T].Entries.empty() || !S.Args[T].Buffer)
      continue;
    std::vector<ArgSpec> Entries = std::move(S.Args[T].Entries);
    S.Args[T].Entries.clear();
    for (ArgSpec &E : Entries) {
      std::string Where =
          "args[" + std::to_string(E.Entry) + "].table[" + std::to_string(E.Slot) + "]: ";
      E.Arg = tableEntryName(S.Args[T].Arg, E.Slot);
      E.Label = tableEntryName(S.Args[T].Label, E.Slot);
      E.Index = unsigned(S.Args.size());
      E.ValueKind = "global_buffer";
      E.Buffer = true;
      E.TableOf = int(T);
      if (std::string Bad = fileElements(E, Where); !Bad.empty())
        return err(Bad);
      S.Args[T].Table.push_back(unsigned(S.Args.size()));
      S.Args.push_back(std::move(E));
    }
  }
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

llvm::Error relocateSpecFiles(LaunchSpec &S, const std::string &Out) {
  std::string OutFolder;
  if (Out != "-") {
    auto Real = realFolderPath(Out);
    if (!Real)
      return Real.takeError();
    OutFolder = llvm::sys::path::parent_path(*Real).str();
  }
  for (ArgSpec &A : S.Args) {
    if (A.File.empty() || llvm::sys::path::is_absolute(A.File))
      continue;
    auto Real = realFolderPath(A.FilePath);
    if (!Real)
      return Real.takeError();
    A.File = Out == "-" ? *Real : relativeTo(OutFolder, *Real);
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> launchSpecText(const LaunchSpec &S) {
  auto notText = [](const std::string &What, const std::string &Value) {
    return makeError(What + " '" + escaped(Value) +
                     "' is not valid UTF-8, which a JSON launch spec cannot hold");
  };
  if (!llvm::json::isUTF8(S.Kernel))
    return notText("the kernel's name", S.Kernel);
  for (const ArgSpec &A : S.Args)
    if (!llvm::json::isUTF8(A.File))
      return withFile(
          notText("args[" + std::to_string(A.Entry) + "]: the path of \"file\"", A.File), S.Path);
  return S.toJson().dump(2) + "\n";
}

} // namespace asmevo::launch
