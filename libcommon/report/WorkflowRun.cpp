#include "report/WorkflowRun.h"

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
  if (S.is_object() && S.value("format", "") == "asmevo-workflow-summary")
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
  W.Summary = readJson(Dir + "/summary.json");
  std::vector<std::string> Names;
  if (W.Summary.is_object() && W.Summary.value("format", "") == "asmevo-workflow-summary") {
    for (const auto &K : W.Summary.value("kernels", nlohmann::json::array()))
      if (K.is_object() && K.contains("name") && K["name"].is_string())
        Names.push_back(K["name"].get<std::string>());
  } else {
    W.Missing.push_back(fs::exists(Dir + "/summary.json")
                            ? "summary.json: not a workflow summary"
                            : "summary.json: missing (the workflow has not finished)");
    W.Summary = nullptr;
  }
  std::vector<std::string> Found;
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
    if (fs::is_directory(It->path()) && isKernelDir(It->path()))
      Found.push_back(llvm::sys::path::filename(It->path()).str());
  std::sort(Found.begin(), Found.end());
  for (const std::string &F : Found)
    if (std::find(Names.begin(), Names.end(), F) == Names.end())
      Names.push_back(F);
  for (const std::string &Name : Names) {
    KernelRun K;
    K.Name = Name;
    std::string KDir = Dir + "/" + Name;
    if (W.Summary.is_object())
      for (const auto &Row : W.Summary["kernels"])
        if (Row.is_object() && Row.value("name", "") == Name)
          K.Row = Row;
    if (!fs::is_directory(KDir)) {
      W.Missing.push_back(Name + "/: missing (listed in summary.json)");
      W.Kernels.push_back(std::move(K));
      continue;
    }
    for (const char *Step : Steps)
      if (!fs::exists(KDir + "/" + Step))
        W.Missing.push_back(Name + "/" + Step + ": missing");
    K.Baseline = readJson(KDir + "/baseline.json");
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
