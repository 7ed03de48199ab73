// One search run directory read as it is on disk (report/SearchRun.h).
#include "report/SearchRun.h"

#include "report/RunFiles.h"
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

double modified(const std::string &Path) {
  fs::file_status St;
  if (fs::status(Path, St))
    return 0;
  return std::chrono::duration<double>(St.getLastModificationTime().time_since_epoch()).count();
}

// An edit as edit.json or node.json's "edits" hold it: an object with a window object.
void checkEdit(Fields E) {
  E.object("window");
  for (const char *Text : {"rationale", "original", "replacement"})
    E.str(Text);
}

// An interval object: its least value under MinKey ("min"), "median", "max", "members" and
// "faster_members".
SpeedupRange speedupRange(Fields F, const char *MinKey) {
  SpeedupRange R;
  R.Min = F.num(MinKey);
  R.Median = F.num("median");
  R.Max = F.num("max");
  R.Members = uint64_t(F.num("members"));
  R.Faster = uint64_t(F.num("faster_members"));
  return R;
}

llvm::Expected<NodeRecord> nodeRecord(const nlohmann::json &J, const std::string &File) {
  Fields F(J, File);
  NodeRecord N;
  N.Id = F.str("id");
  N.Parent = F.str("parent");
  N.Driver = F.str("driver");
  N.Outcome = F.str("outcome");
  N.Stage = F.str("stage");
  N.Signature = F.str("signature");
  N.Message = F.str("message");
  N.Kind = F.str("kind");
  N.Backend = F.str("backend");
  N.BestBefore = F.str("best_before");
  nlohmann::json Sources = F.array("sources");
  for (size_t I = 0; Sources.is_array() && I < Sources.size(); ++I) {
    if (!Sources[I].is_string())
      return llvm::make_error<ToolError>(
          "\"sources[" + std::to_string(I) + "]\" is not a node id (a string)", File);
    N.Sources.push_back(Sources[I].get<std::string>());
  }
  N.Verified = F.flag("verified");
  N.Committed = F.flag("committed");
  N.Speedup = F.num("speedup");
  N.K0Us = F.num("k0_us");
  N.Us = F.num("us");
  N.Cv = F.num("cv");
  N.Threshold = F.num("threshold");
  N.Seconds = F.num("seconds");
  N.Recorded = F.num("recorded_at");
  nlohmann::json Lines = F.array("edited_lines");
  for (size_t I = 0; Lines.is_array() && I < Lines.size(); ++I) {
    const nlohmann::json &L = Lines[I];
    if (!L.is_array() || L.size() != 2 || !L[0].is_number_unsigned() ||
        !L[1].is_number_unsigned() || L[0].get<uint64_t>() > L[1].get<uint64_t>())
      return llvm::make_error<ToolError>(
          "\"edited_lines[" + std::to_string(I) + "]\" is not a line range [first, last]", File);
    N.EditedLines.push_back({L[0].get<uint64_t>(), L[1].get<uint64_t>()});
  }
  if (F.object("speedup_interval").is_object())
    N.Interval = speedupRange(F.sub("speedup_interval"), "min");
  if (N.Interval && N.Interval->Members < 2)
    N.Interval.reset(); // one parameter set: a point, shown as the speedup alone
  if (F.object("gate").is_object())
    N.PointCommit = F.sub("gate").flag("point_commit");
  nlohmann::json Edits = F.array("edits");
  for (size_t I = 0; Edits.is_array() && I < Edits.size(); ++I)
    checkEdit(F.element(Edits, I, "edits"));
  if (Edits.is_array())
    N.Edits = Edits;
  if (llvm::Error E = F.error())
    return std::move(E);
  return N;
}

class Reader {
public:
  Reader(SearchRun &R) : R(R) {}

  void missing(const std::string &File, const std::string &What) {
    R.Missing.push_back(R.Prefix + File + ": " + What);
  }

  // A JSON file of the run; absent: a line of Missing (with Why, when given).
  llvm::Expected<std::optional<nlohmann::json>>
  json(const std::string &File, const std::string &Format, const std::string &Why = "") {
    auto J = readRunJson(R.Dir + "/" + File, Format);
    if (J && !*J)
      missing(File, Why.empty() ? "missing" : "missing (" + Why + ")");
    return J;
  }

  llvm::Error run() {
    auto J = json("run.json", "asmevo-run", "the run's identity: K0, kernel, launch spec");
    if (!J || !*J)
      return J.takeError();
    Fields F(**J, R.Dir + "/run.json");
    for (const char *Key : {"k0", "k0_sha256", "kernel", "target"})
      F.str(Key);
    F.object("options");
    if (llvm::Error E = F.error())
      return E;
    R.Run = std::move(**J);
    return llvm::Error::success();
  }

  llvm::Error summary() {
    auto J = json("summary.json", "asmevo-report",
                  "the search has not finished: stopped, or still running");
    if (!J || !*J)
      return J.takeError();
    Fields F(**J, R.Dir + "/summary.json");
    F.str("message");
    Fields B = F.sub("body");
    B.str("stopped_by");
    B.num("seconds");
    if (llvm::Error E = F.error())
      return E;
    R.Summary = std::move(**J);
    return llvm::Error::success();
  }

  llvm::Error journal() {
    std::string P = R.Dir + "/journal.jsonl";
    if (!fs::exists(P)) {
      missing("journal.jsonl", "missing");
      return llvm::Error::success();
    }
    auto B = readFile(P);
    if (!B)
      return B.takeError();
    llvm::StringRef Text = (*B)->getBuffer();
    // A kill in the middle of an append leaves a torn last line (maybe in the middle of a
    // character): everything before it must be whole.
    size_t Whole = Text.rfind('\n') == llvm::StringRef::npos ? 0 : Text.rfind('\n') + 1;
    if (llvm::Error E = checkText(P, Text.take_front(Whole)))
      return E;
    llvm::StringRef Rest = Text;
    uint64_t Line = 0;
    while (!Rest.empty()) {
      size_t Nl = Rest.find('\n');
      llvm::StringRef L = Rest.substr(0, Nl);
      ++Line;
      if (Nl == llvm::StringRef::npos) {
        missing("journal.jsonl",
                "line " + std::to_string(Line) + " is torn (the run stopped while writing it)");
        break;
      }
      Rest = Rest.drop_front(Nl + 1);
      auto E = parseObject(P, L, unsigned(Line));
      if (!E)
        return E.takeError();
      Fields F(*E, P);
      std::string Event = F.str("event"), Fault = F.str("fault", "?");
      if (!F.ok())
        return lineError(P, unsigned(Line), F.message());
      ++R.JournalEvents;
      if (Event == "fault")
        ++R.Faults[Fault];
    }
    return llvm::Error::success();
  }

  llvm::Error nodes() {
    std::string Dir = R.Dir + "/nodes";
    if (!fs::exists(Dir)) {
      missing("nodes/", "missing (no candidate was recorded)");
      return llvm::Error::success();
    }
    if (!fs::is_directory(Dir))
      return llvm::make_error<ToolError>("not a directory (the run's nodes are directories in it)",
                                         Dir);
    std::vector<std::string> Ids;
    std::error_code EC;
    for (fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
      if (fs::is_directory(It->path()))
        Ids.push_back(llvm::sys::path::filename(It->path()).str());
    if (EC)
      return llvm::make_error<ToolError>("cannot read the directory: " + EC.message(), Dir);
    std::sort(Ids.begin(), Ids.end());
    for (const std::string &Id : Ids) {
      if (llvm::Error E = checkText(Dir + "/" + Id, Id))
        return E;
      std::string Rel = "nodes/" + Id + "/";
      auto J = json(Rel + "node.json", "asmevo-node",
                    "a candidate being evaluated when the run stopped");
      if (!J)
        return J.takeError();
      if (!*J)
        continue;
      std::string File = R.Dir + "/" + Rel + "node.json";
      auto N = nodeRecord(**J, File);
      if (!N)
        return N.takeError();
      if (N->Id.empty())
        N->Id = Id;
      if (N->Id != Id)
        return llvm::make_error<ToolError>(
            "\"id\" is \"" + N->Id + "\", not the name of its " + "directory (" + Id + ")", File);
      // When the agent recorded it (node.json's recorded_at), else the file's modification time
      // (runs from before recorded_at; a copy without -p loses those).
      if (N->Recorded <= 0)
        N->Recorded = modified(File);
      bool Root = N->Id == "n000000";
      auto Expect = [&](const std::string &F) {
        if (!fs::exists(R.Dir + "/" + Rel + F))
          missing(Rel + F, "missing");
      };
      if (!Root)
        Expect("edit.json");
      if (N->Verified)
        Expect("cand.s");
      if (!Root && (N->Stage == "diffcheck" || N->Stage == "time" || N->Stage == "gate"))
        Expect("diffcheck.json");
      if (!Root && (N->Stage == "time" || N->Stage == "gate"))
        Expect("time.json");
      R.Nodes.push_back(std::move(*N));
    }
    if (!Ids.empty() && !R.node("n000000") &&
        std::find(Ids.begin(), Ids.end(), "n000000") == Ids.end())
      missing("nodes/n000000/node.json", "missing (the root: K0)");
    return llvm::Error::success();
  }

  llvm::Error commits() {
    auto Root = readRunText(R.Dir + "/nodes/n000000/cand.s");
    if (!Root)
      return Root.takeError();
    R.RootText = std::move(*Root);
    for (const NodeRecord &N : R.Nodes) {
      if (!N.Committed || N.Id == "n000000")
        continue;
      CommitRecord C;
      C.Id = N.Id;
      std::string Dir = R.Dir + "/nodes/" + N.Id + "/";
      auto Text = readRunText(Dir + "cand.s");
      if (!Text)
        return Text.takeError();
      C.Text = std::move(*Text);
      if (!N.Parent.empty()) {
        auto P = readRunText(R.Dir + "/nodes/" + N.Parent + "/cand.s");
        if (!P)
          return P.takeError();
        C.ParentText = std::move(*P);
      }
      auto T = readRunJson(Dir + "time.json", "asmevo-report");
      if (!T)
        return T.takeError();
      if (*T) {
        auto E = timeEvidence(**T, Dir + "time.json");
        if (!E)
          return E.takeError();
        C.Time = std::move(*E);
      }
      auto D = readRunJson(Dir + "diffcheck.json", "asmevo-report");
      if (!D)
        return D.takeError();
      if (*D) {
        auto V = checkVerdict(**D, Dir + "diffcheck.json");
        if (!V)
          return V.takeError();
        C.Check = std::move(*V);
      }
      if (llvm::Error E = edit(Dir + "edit.json", C))
        return E;
      R.Commits.push_back(std::move(C));
    }
    if (!R.Commits.empty() && !fs::exists(R.Dir + "/best.s"))
      missing("best.s", "missing");
    return llvm::Error::success();
  }

  // edit.json: one edit (format asmevo-edit), or an array of them (a composition).
  llvm::Error edit(const std::string &Path, CommitRecord &C) {
    auto T = readRunText(Path);
    if (!T || !*T)
      return T.takeError();
    auto V = parseValue(Path, **T);
    if (!V)
      return V.takeError();
    if (!V->is_object() && !V->is_array())
      return llvm::make_error<ToolError>("not an edit (a JSON object) or an array of edits", Path);
    Fields F(V->is_object() ? *V : nlohmann::json::object(), Path);
    if (V->is_object())
      checkEdit(F);
    for (size_t I = 0; V->is_array() && I < V->size(); ++I)
      checkEdit(F.element(*V, I, "")); // names the element "[I]"
    if (llvm::Error E = F.error())
      return E;
    C.Edit = std::move(*V);
    return llvm::Error::success();
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

llvm::Expected<TimeEvidence> timeEvidence(const nlohmann::json &J, const std::string &File) {
  Fields F(J, File);
  TimeEvidence T;
  T.Outcome = F.str("outcome");
  T.Message = F.str("message");
  T.Backend = F.str("backend");
  Fields B = F.sub("body");
  T.Kind = B.str("kind");
  T.Label = B.str("label");
  nlohmann::json Ks = B.array("kernels");
  for (size_t I = 0; Ks.is_array() && I < Ks.size(); ++I) {
    Fields K = B.element(Ks, I, "kernels");
    bool IsK0 = K.str("role") == "K0";
    double Us = K.num("median_us", K.num("microseconds"));
    T.HasMedian |= Ks[I].is_object() && Ks[I].contains("median_us");
    (IsK0 ? T.K0Us : T.Us) = Us;
    (IsK0 ? T.K0Cv : T.Cv) = K.num("cv");
  }
  if (B.object("ratio").is_object()) {
    Fields Q = B.sub("ratio");
    nlohmann::json R = B.object("ratio");
    auto Num = [&](const char *Key) -> std::optional<double> {
      if (!R.contains(Key) || R[Key].is_null())
        return std::nullopt;
      return Q.num(Key);
    };
    T.Ratio = Num("value");
    T.Low = Num("low");
    T.High = Num("high");
    T.Level = Num("level");
    T.Basis = Q.str("basis");
    T.Interval = Q.str("interval");
  }
  if (B.object("speedup").is_object()) {
    T.Speedup = B.sub("speedup").num("value");
    SpeedupRange S = speedupRange(B.sub("speedup"), "min");
    if (S.Members > 1)
      T.Ensemble = S;
  }
  if (llvm::Error E = F.error())
    return std::move(E);
  return T;
}

llvm::Expected<CheckVerdict> checkVerdict(const nlohmann::json &J, const std::string &File) {
  Fields F(J, File);
  CheckVerdict C;
  C.Outcome = F.str("outcome");
  C.Message = F.str("message");
  C.Backend = F.str("backend");
  nlohmann::json Seeds = F.array("seeds");
  for (size_t I = 0; Seeds.is_array() && I < Seeds.size(); ++I) {
    if (!Seeds[I].is_number_unsigned())
      return llvm::make_error<ToolError>(
          "\"seeds[" + std::to_string(I) + "]\" is not a seed (an integer >= 0)", File);
    C.Seeds.push_back(Seeds[I].get<uint64_t>());
  }
  if (llvm::Error E = F.error())
    return std::move(E);
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
  for (llvm::Error (Reader::*Step)() :
       {&Reader::run, &Reader::journal, &Reader::nodes, &Reader::commits, &Reader::summary})
    if (llvm::Error E = (In.*Step)())
      return std::move(E);
  return R;
}

} // namespace asmevo::report
