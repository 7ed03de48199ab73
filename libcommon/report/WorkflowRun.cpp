// A workflow run directory read for the report (report/WorkflowRun.h).
#include "report/WorkflowRun.h"

#include "report/RunFiles.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace asmevo::report {

namespace {

namespace fs = llvm::sys::fs;

nlohmann::json readJson(const std::string &Path) {
  if (!fs::is_regular_file(Path))
    return nullptr;
  auto B = readFile(Path);
  if (!B) {
    llvm::consumeError(B.takeError());
    return nullptr;
  }
  llvm::StringRef T = (*B)->getBuffer();
  nlohmann::json J = nlohmann::json::parse(T.begin(), T.end(), nullptr, false);
  return J.is_discarded() ? nlohmann::json(nullptr) : J;
}

bool isKernelDir(const std::string &Dir) {
  return fs::is_directory(Dir + "/search") || fs::exists(Dir + "/k0.hsaco");
}

const char *Steps[] = {"k0.hsaco",      "k0.s",         "gate.json",   "spec.json",
                       "baseline.json", "profile.json", "summary.json"};

} // namespace

bool isWorkflowRun(const std::string &Dir) {
  nlohmann::json S = readJson(Dir + "/summary.json");
  if (S.is_object() && S.contains("format") && S["format"] == "asmevo-workflow-summary")
    return true;
  if (fs::exists(Dir + "/run.json") || fs::exists(Dir + "/journal.jsonl") ||
      fs::exists(Dir + "/nodes"))
    return false;
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
    if (fs::is_directory(It->path()) && isKernelDir(It->path()))
      return true;
  return false;
}

llvm::Expected<WorkflowRun> readWorkflowRun(const std::string &Dir) {
  if (llvm::Error E = checkRunDirectory(Dir))
    return std::move(E);
  WorkflowRun W;
  W.Dir = Dir;
  std::vector<std::string> Names;
  std::string SummaryPath = Dir + "/summary.json";
  auto S = readRunJson(SummaryPath, "asmevo-workflow-summary");
  if (!S)
    return S.takeError();
  if (*S) {
    Fields F(**S, SummaryPath);
    nlohmann::json Ks = F.array("kernels");
    for (size_t I = 0; Ks.is_array() && I < Ks.size(); ++I) {
      Fields K = F.element(Ks, I, "kernels");
      std::string Name = K.str("name");
      K.num("speedup");
      for (const char *Key : {"kind", "backend", "stopped_by", "kstar"})
        K.str(Key);
      for (const char *Key : {"candidates", "commits"})
        K.num(Key);
      if (!F.ok())
        return F.error();
      if (Name.empty() || Name.find('/') != std::string::npos || Name == "." || Name == "..")
        return llvm::make_error<ToolError>("\"kernels[" + std::to_string(I) + "].name\" is \"" +
                                               Name + "\", not a kernel's directory name",
                                           SummaryPath);
      Names.push_back(Name);
    }
    W.Summary = std::move(**S);
  } else {
    W.Missing.push_back("summary.json: missing (the workflow has not finished)");
  }
  std::vector<std::string> Found;
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
    if (fs::is_directory(It->path()) && isKernelDir(It->path()))
      Found.push_back(llvm::sys::path::filename(It->path()).str());
  std::sort(Found.begin(), Found.end());
  for (const std::string &F : Found) {
    if (llvm::Error E = checkText(Dir + "/" + F, F))
      return std::move(E);
    if (std::find(Names.begin(), Names.end(), F) == Names.end())
      Names.push_back(F);
  }
  for (const std::string &Name : Names) {
    KernelRun K;
    K.Name = Name;
    std::string KDir = Dir + "/" + Name;
    if (W.Summary.is_object())
      for (const auto &Row : W.Summary["kernels"])
        if (Row["name"] == Name)
          K.Row = Row;
    if (!fs::is_directory(KDir)) {
      W.Missing.push_back(Name + "/: missing (listed in summary.json)");
      W.Kernels.push_back(std::move(K));
      continue;
    }
    for (const char *Step : Steps)
      if (!fs::exists(KDir + "/" + Step))
        W.Missing.push_back(Name + "/" + Step + ": missing");
    auto B = readRunJson(KDir + "/baseline.json", "asmevo-report");
    if (!B)
      return B.takeError();
    if (*B) {
      Fields F(**B, KDir + "/baseline.json");
      F.str("backend");
      Fields Body = F.sub("body");
      Body.str("kind");
      nlohmann::json Ks = Body.array("kernels");
      for (size_t I = 0; Ks.is_array() && I < Ks.size(); ++I)
        Body.element(Ks, I, "kernels").num("microseconds");
      if (!F.ok())
        return F.error();
      K.Baseline = std::move(**B);
    }
    if (!fs::is_directory(KDir + "/search")) {
      W.Missing.push_back(Name + "/search/: missing (the search has not started)");
    } else {
      auto S = readSearchRun(KDir + "/search", Name + "/search/");
      if (!S)
        return S.takeError();
      W.Missing.insert(W.Missing.end(), S->Missing.begin(), S->Missing.end());
      K.Search = std::move(*S);
    }
    W.Kernels.push_back(std::move(K));
  }
  return W;
}

} // namespace asmevo::report
