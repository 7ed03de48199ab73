#include "report/SearchRun.h"

#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>

namespace asmevo::report {

namespace {

namespace fs = llvm::sys::fs;

// A JSON file: nullopt and Why set when it is absent ("missing") or not JSON.
std::optional<nlohmann::json> readJson(const std::string &Path, std::string &Why) {
  if (!fs::exists(Path)) {
    Why = "missing";
    return std::nullopt;
  }
  auto B = readFile(Path);
  if (!B) {
    llvm::consumeError(B.takeError());
    Why = "unreadable";
    return std::nullopt;
  }
  llvm::StringRef T = (*B)->getBuffer();
  nlohmann::json J = nlohmann::json::parse(T.begin(), T.end(), nullptr, false);
  if (J.is_discarded()) {
    Why = T.empty() ? "empty" : "not valid JSON";
    return std::nullopt;
  }
  return J;
}

std::optional<std::string> readText(const std::string &Path) {
  if (!fs::is_regular_file(Path))
    return std::nullopt;
  auto B = readFile(Path);
  if (!B) {
    llvm::consumeError(B.takeError());
    return std::nullopt;
  }
  return (*B)->getBuffer().str();
}

double modified(const std::string &Path) {
  fs::file_status St;
  if (fs::status(Path, St))
    return 0;
  return std::chrono::duration<double>(St.getLastModificationTime().time_since_epoch()).count();
}

template <typename T> T get(const nlohmann::json &J, const char *Key, T Default) {
  auto It = J.find(Key);
  if (It == J.end() || It->is_null())
    return Default;
  try {
    return It->get<T>();
  } catch (const nlohmann::json::exception &) {
    return Default;
  }
}

NodeRecord nodeRecord(const nlohmann::json &J) {
  NodeRecord N;
  N.Id = get<std::string>(J, "id", "");
  N.Parent = get<std::string>(J, "parent", "");
  N.Driver = get<std::string>(J, "driver", "");
  N.Outcome = get<std::string>(J, "outcome", "");
  N.Stage = get<std::string>(J, "stage", "");
  N.Signature = get<std::string>(J, "signature", "");
  N.Message = get<std::string>(J, "message", "");
  N.Kind = get<std::string>(J, "kind", "");
  N.Backend = get<std::string>(J, "backend", "");
  N.BestBefore = get<std::string>(J, "best_before", "");
  N.Sources = get<std::vector<std::string>>(J, "sources", {});
  N.Verified = get<bool>(J, "verified", false);
  N.Committed = get<bool>(J, "committed", false);
  N.Speedup = get<double>(J, "speedup", 0);
  N.K0Us = get<double>(J, "k0_us", 0);
  N.Us = get<double>(J, "us", 0);
  N.Cv = get<double>(J, "cv", 0);
  N.Threshold = get<double>(J, "threshold", 0);
  N.Seconds = get<double>(J, "seconds", 0);
  N.EditedLines = get<std::vector<std::pair<uint64_t, uint64_t>>>(J, "edited_lines", {});
  N.Edits = get<nlohmann::json>(J, "edits", nlohmann::json::array());
  return N;
}

class Reader {
public:
  Reader(SearchRun &R) : R(R) {}

  void missing(const std::string &File, const std::string &What) {
    R.Missing.push_back(R.Prefix + File + ": " + What);
  }

  std::optional<nlohmann::json> json(const std::string &File, const std::string &Why = "") {
    std::string W;
    auto J = readJson(R.Dir + "/" + File, W);
    if (!J)
      missing(File, W == "missing" && !Why.empty() ? W + " (" + Why + ")" : W);
    return J;
  }

  void journal() {
    std::string P = R.Dir + "/journal.jsonl";
    auto T = readText(P);
    if (!T) {
      missing("journal.jsonl", "missing");
      return;
    }
    llvm::StringRef Rest(*T);
    uint64_t Line = 0;
    while (!Rest.empty()) {
      size_t Nl = Rest.find('\n');
      llvm::StringRef L = Rest.substr(0, Nl);
      ++Line;
      if (Nl == llvm::StringRef::npos) {
        missing("journal.jsonl",
                "line " + std::to_string(Line) + " is torn (the run stopped while writing it)");
        return;
      }
      Rest = Rest.drop_front(Nl + 1);
      nlohmann::json E = nlohmann::json::parse(L.begin(), L.end(), nullptr, false);
      if (E.is_discarded() || !E.is_object()) {
        missing("journal.jsonl", "line " + std::to_string(Line) + " is not JSON");
        continue;
      }
      ++R.JournalEvents;
      if (get<std::string>(E, "event", "") == "fault")
        ++R.Faults[get<std::string>(E, "fault", "?")];
    }
  }

  void nodes() {
    std::string Dir = R.Dir + "/nodes";
    if (!fs::is_directory(Dir)) {
      missing("nodes/", "missing (no candidate was recorded)");
      return;
    }
    std::vector<std::string> Ids;
    std::error_code EC;
    for (fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
      if (fs::is_directory(It->path()))
        Ids.push_back(llvm::sys::path::filename(It->path()).str());
    std::sort(Ids.begin(), Ids.end());
    for (const std::string &Id : Ids) {
      std::string Rel = "nodes/" + Id + "/";
      auto J = json(Rel + "node.json", "a candidate being evaluated when the run stopped");
      if (!J)
        continue;
      NodeRecord N = nodeRecord(*J);
      if (N.Id.empty())
        N.Id = Id;
      // When the agent recorded it (node.json's recorded_at), else the file's modification time
      // (runs from before recorded_at; a copy without -p loses those).
      N.Recorded = get<double>(*J, "recorded_at", 0.0);
      if (N.Recorded <= 0)
        N.Recorded = modified(R.Dir + "/" + Rel + "node.json");
      bool Root = N.Id == "n000000";
      auto Expect = [&](const std::string &F) {
        if (!fs::exists(R.Dir + "/" + Rel + F))
          missing(Rel + F, "missing");
      };
      if (!Root)
        Expect("edit.json");
      if (N.Verified)
        Expect("cand.s");
      if (!Root && (N.Stage == "diffcheck" || N.Stage == "time" || N.Stage == "gate"))
        Expect("diffcheck.json");
      if (!Root && (N.Stage == "time" || N.Stage == "gate"))
        Expect("time.json");
      R.Nodes.push_back(std::move(N));
    }
    if (!Ids.empty() && !R.node("n000000") &&
        std::find(Ids.begin(), Ids.end(), "n000000") == Ids.end())
      missing("nodes/n000000/node.json", "missing (the root: K0)");
  }

  void commits() {
    for (const NodeRecord &N : R.Nodes) {
      if (!N.Committed || N.Id == "n000000")
        continue;
      CommitRecord C;
      C.Id = N.Id;
      std::string Dir = R.Dir + "/nodes/" + N.Id + "/";
      C.Text = readText(Dir + "cand.s");
      if (!N.Parent.empty())
        C.ParentText = readText(R.Dir + "/nodes/" + N.Parent + "/cand.s");
      std::string Why;
      if (auto T = readJson(Dir + "time.json", Why))
        C.Time = timeEvidence(*T);
      if (auto D = readJson(Dir + "diffcheck.json", Why))
        C.Check = checkVerdict(*D);
      if (auto E = readJson(Dir + "edit.json", Why))
        C.Edit = *E;
      R.Commits.push_back(std::move(C));
    }
    if (!R.Commits.empty() && !fs::exists(R.Dir + "/best.s"))
      missing("best.s", "missing");
  }

private:
  SearchRun &R;
};

} // namespace

const NodeRecord *SearchRun::node(const std::string &Id) const {
  for (const NodeRecord &N : Nodes)
    if (N.Id == Id)
      return &N;
  return nullptr;
}

TimeEvidence timeEvidence(const nlohmann::json &J) {
  TimeEvidence T;
  T.Outcome = get<std::string>(J, "outcome", "");
  T.Message = get<std::string>(J, "message", "");
  T.Backend = get<std::string>(J, "backend", "");
  nlohmann::json B = get<nlohmann::json>(J, "body", nlohmann::json::object());
  T.Kind = get<std::string>(B, "kind", "");
  T.Label = get<std::string>(B, "label", "");
  nlohmann::json Ks = get<nlohmann::json>(B, "kernels", nlohmann::json::array());
  for (const auto &K : Ks) {
    if (!K.is_object())
      continue;
    bool IsK0 = get<std::string>(K, "role", "") == "K0";
    double Us = get<double>(K, "median_us", get<double>(K, "microseconds", 0));
    T.HasMedian |= K.contains("median_us");
    (IsK0 ? T.K0Us : T.Us) = Us;
    (IsK0 ? T.K0Cv : T.Cv) = get<double>(K, "cv", 0);
  }
  nlohmann::json Q = get<nlohmann::json>(B, "ratio", nlohmann::json());
  if (Q.is_object()) {
    auto Num = [&](const char *Key) -> std::optional<double> {
      if (!Q.contains(Key) || !Q[Key].is_number())
        return std::nullopt;
      return Q[Key].get<double>();
    };
    T.Ratio = Num("value");
    T.Low = Num("low");
    T.High = Num("high");
    T.Level = Num("level");
    T.Basis = get<std::string>(Q, "basis", "");
    T.Interval = get<std::string>(Q, "interval", "");
  }
  return T;
}

CheckVerdict checkVerdict(const nlohmann::json &J) {
  CheckVerdict C;
  C.Outcome = get<std::string>(J, "outcome", "");
  C.Message = get<std::string>(J, "message", "");
  C.Backend = get<std::string>(J, "backend", "");
  C.Seeds = get<std::vector<uint64_t>>(J, "seeds", {});
  return C;
}

llvm::Error checkRunDirectory(const std::string &Dir) {
  if (!fs::exists(Dir))
    return llvm::make_error<ToolError>("no such file or directory", Dir);
  if (!fs::is_directory(Dir))
    return llvm::make_error<ToolError>("not a directory", Dir);
  return llvm::Error::success();
}

llvm::Expected<SearchRun> readSearchRun(const std::string &Dir, const std::string &Prefix) {
  if (llvm::Error E = checkRunDirectory(Dir))
    return std::move(E);
  SearchRun R;
  R.Dir = Dir;
  R.Prefix = Prefix;
  Reader In(R);
  if (auto J = In.json("run.json", "the run's identity: K0, kernel, launch spec"))
    R.Run = *J;
  In.journal();
  In.nodes();
  In.commits();
  if (auto J = In.json("summary.json", "the search has not finished: stopped, or still running"))
    R.Summary = *J;
  return R;
}

} // namespace asmevo::report
