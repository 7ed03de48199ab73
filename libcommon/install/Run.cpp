// Reading a workflow run: the summary's kernels, K0 and K* with their SHA-256, and the check
// that K* still is a code object for K0's target with K0's kernel symbols (the workflow's gate
// guarantees it; the installer relies on it, so it says so when it does not hold).
#include "install/Run.h"

#include "codeobj/CodeObject.h"
#include "install/JsonField.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"
#include "support/JsonText.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace asmevo::install {

namespace {

llvm::Expected<std::vector<std::string>> kernelSymbols(const std::string &Bytes,
                                                       const std::string &Path,
                                                       std::string *Processor,
                                                       std::string *Target = nullptr) {
  auto C = CodeObject::read(Bytes, Path);
  if (!C)
    return C.takeError();
  std::vector<std::string> Names;
  for (const KernelInfo &K : C->Kernels)
    Names.push_back(K.Name);
  std::sort(Names.begin(), Names.end());
  *Processor = C->Target.Processor;
  if (Target)
    *Target = shortTargetId(C->Target);
  return Names;
}

// A spec file's grid and block ({} when it cannot be read: the entry still names the file).
nlohmann::json specShape(const std::string &Path) {
  auto T = readFile(Path);
  if (!T)
    return llvm::consumeError(T.takeError()), nlohmann::json::object();
  nlohmann::json J = nlohmann::json::parse((*T)->getBuffer().str(), nullptr, false);
  nlohmann::json Out = nlohmann::json::object();
  for (const char *F : {"grid", "block"})
    if (J.is_object() && J.contains(F) && J[F].is_array())
      Out[F] = J[F];
  return Out;
}

} // namespace

nlohmann::json verifiedLaunches(const std::string &RunDir, const std::string &Name) {
  auto T = readFile(RunDir + "/" + Name + "/summary.json");
  if (!T)
    return llvm::consumeError(T.takeError()), nullptr;
  nlohmann::json S = nlohmann::json::parse((*T)->getBuffer().str(), nullptr, false);
  if (!S.is_object() || !S.contains("body") || !S["body"].is_object() ||
      !S["body"].contains("launches") || !S["body"]["launches"].is_object())
    return nullptr;
  const nlohmann::json &L = S["body"]["launches"];
  nlohmann::json Out = nlohmann::json::array();
  auto Spec = [&](const std::string &File, const nlohmann::json &Seeds, const char *When) {
    nlohmann::json E = {{"spec", Name + "/" + File}};
    E.update(specShape(RunDir + "/" + Name + "/" + File));
    E["seeds"] = Seeds;
    if (When)
      E["when"] = When;
    Out.push_back(E);
  };
  const nlohmann::json C = L.value("correctness", nlohmann::json::object());
  if (C.contains("spec") && C["spec"].is_string()) {
    Spec("spec.json", C.value("seeds", nlohmann::json::array()), nullptr);
    // Its edge shapes (kernel-diffcheck(1)): tails and one workgroup, on the last seed.
    if (C.contains("edge_shapes") && C["edge_shapes"].is_array() && !C["edge_shapes"].empty())
      Out.back()["edge_shapes"] = {{"shapes", C["edge_shapes"]},
                                   {"seed", C.value("edge_shapes_seed", nlohmann::json())}};
  }
  const nlohmann::json Tm = L.value("timing", nlohmann::json::object());
  // A timing spec other than the correctness spec (the workflow's time-spec.json).
  if (Tm.contains("spec") && Tm["spec"].is_string() &&
      Tm["spec"] != C.value("spec", nlohmann::json()) &&
      llvm::sys::fs::exists(RunDir + "/" + Name + "/time-spec.json"))
    Spec("time-spec.json",
         nlohmann::json::array({C.value("seeds", nlohmann::json::array({1})).front()}),
         "before a commit");
  std::vector<std::string> Shas;
  for (const nlohmann::json &In : S.value("inputs", nlohmann::json::array()))
    if (In.is_object() && In.value("role", "") == "capture")
      Shas.push_back(In.value("sha256", ""));
  const nlohmann::json Caps = C.value("captures", nlohmann::json::array());
  for (size_t I = 0; Caps.is_array() && I < Caps.size(); ++I)
    Out.push_back({{"capture", Caps[I]}, {"sha256", I < Shas.size() ? Shas[I] : ""}});
  return Out;
}

namespace {

llvm::Error readKernel(const std::string &RunDir, RunKernel &K) {
  K.K0Path = RunDir + "/" + K.Name + "/k0.hsaco";
  K.KStarPath = RunDir + "/" + K.Name + "/search/best.hsaco";
  auto K0 = readFile(K.K0Path);
  if (!K0)
    return K0.takeError();
  K.K0 = (*K0)->getBuffer().str();
  K.K0Sha256 = sha256Hex(K.K0);
  auto Syms = kernelSymbols(K.K0, K.K0Path, &K.Processor);
  if (!Syms)
    return Syms.takeError();
  K.Symbols = *Syms;
  K.VerifiedOn = verifiedLaunches(RunDir, K.Name);
  if (!llvm::sys::fs::exists(K.KStarPath))
    return llvm::Error::success();
  auto KS = readFile(K.KStarPath);
  if (!KS)
    return KS.takeError();
  K.KStar = (*KS)->getBuffer().str();
  K.KStarSha256 = sha256Hex(K.KStar);
  std::string Processor;
  auto StarSyms = kernelSymbols(K.KStar, K.KStarPath, &Processor, &K.Target);
  if (!StarSyms)
    return StarSyms.takeError();
  if (*StarSyms != K.Symbols || Processor != K.Processor)
    return llvm::make_error<ToolError>(
        "K* does not keep K0's target and kernel symbols ('" + K.K0Path + "')", K.KStarPath);
  return llvm::Error::success();
}

} // namespace

std::string shortTargetId(const TargetId &T) {
  std::string Id = T.str();
  size_t At = Id.find("--");
  return At == std::string::npos ? Id : Id.substr(At + 2);
}

std::string RunKernel::skipReason(bool All) const {
  if (KStar.empty())
    return "the search wrote no K*";
  if (KStarSha256 == K0Sha256)
    return "no improvement (K* is K0)";
  if (!All && Speedup <= 1)
    return "no improvement (speedup " + fixed(Speedup, 4) + "x; --all installs it)";
  return "";
}

llvm::Expected<Run> readRun(llvm::StringRef Dir) {
  Run R;
  R.Dir = Dir.str();
  llvm::SmallString<256> Abs(Dir);
  if (auto EC = llvm::sys::fs::make_absolute(Abs))
    return llvm::make_error<ToolError>("cannot resolve: " + EC.message(), Dir.str());
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  R.AbsDir = Abs.str().str();
  if (!llvm::sys::fs::is_directory(Dir))
    return llvm::make_error<ToolError>("not a workflow run directory (make -f Makefile.workflow "
                                       "writes one)",
                                       Dir.str());
  std::string SummaryPath = R.Dir + "/summary.json";
  auto S = readFile(SummaryPath);
  if (!S)
    return llvm::make_error<ToolError>(
        "cannot read the run's summary (is the workflow run finished?)", SummaryPath);
  if (llvm::Error E = checkUtf8Text(SummaryPath, (*S)->getBuffer()))
    return std::move(E);
  auto Parsed = parseJsonText(SummaryPath, (*S)->getBuffer());
  if (!Parsed)
    return Parsed.takeError();
  const nlohmann::json &J = *Parsed;
  if (!J.is_object() || textOf(J, "format") != "asmevo-workflow-summary" ||
      !J.contains("kernels") || !J["kernels"].is_array())
    return llvm::make_error<ToolError>("not a workflow summary (format asmevo-workflow-summary)",
                                       SummaryPath);
  if (intOf(J, "format_version") != 1)
    return llvm::make_error<ToolError>("workflow summary format version " +
                                           std::to_string(intOf(J, "format_version")) +
                                           " (this installer reads version 1)",
                                       SummaryPath);
  const nlohmann::json &Kernels = J["kernels"];
  for (size_t I = 0; I < Kernels.size(); ++I) {
    const nlohmann::json &E = Kernels[I];
    std::string Where = "\"kernels[" + std::to_string(I) + "]\"";
    RunKernel K;
    if (!E.is_object() || !E.contains("name") || !E["name"].is_string() || !E.contains("speedup") ||
        !E["speedup"].is_number())
      return llvm::make_error<ToolError>(
          Where + " has no \"name\" (a string) or no \"speedup\" (a number)", SummaryPath);
    K.Name = E["name"].get<std::string>();
    if (K.Name.empty() || K.Name.find('/') != std::string::npos || K.Name == "." || K.Name == "..")
      return llvm::make_error<ToolError>("bad kernel name '" + K.Name + "'", SummaryPath);
    K.Speedup = E["speedup"].get<double>();
    if (!std::isfinite(K.Speedup) || K.Speedup < 0)
      return llvm::make_error<ToolError>(Where + ": \"speedup\" is " + jsonShown(E["speedup"]) +
                                             ", not a finite number >= 0",
                                         SummaryPath);
    K.Kind = textOf(E, "kind");
    if (llvm::Error Err = readKernel(R.Dir, K))
      return Err;
    R.Kernels.push_back(std::move(K));
  }
  if (R.Kernels.empty())
    return llvm::make_error<ToolError>("the run has no kernels", SummaryPath);
  return R;
}

} // namespace asmevo::install
