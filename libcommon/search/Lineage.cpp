// The run directory and its lineage (search/Lineage.h): nodes written atomically, the
// append-only journal, the run's lock.
#include "search/Lineage.h"
#include "search/LineageIO.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"
#include "timing/Ensemble.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace asmevo::search {

nlohmann::json speedupIntervalJson(const Node &N) {
  if (N.Speedups.empty())
    return nullptr;
  timing::Interval I = timing::summarizeEnsemble(N.Speedups);
  unsigned Faster = 0;
  for (double X : N.Speedups)
    Faster += X > 1;
  return {{"members", I.Members},
          {"min", I.Min},
          {"median", I.Median},
          {"max", I.Max},
          {"faster_members", Faster}};
}

std::string speedupText(const Node &N) {
  std::string T = fixed(N.Speedup, 4) + "x";
  if (N.Speedups.size() > 1) {
    timing::Interval I = timing::summarizeEnsemble(N.Speedups);
    T += " [" + fixed(I.Min, 4) + ", " + fixed(I.Max, 4) + "]";
  }
  return T;
}

nlohmann::json nodeJson(const Node &N) {
  nlohmann::json Edits = nlohmann::json::array();
  for (const Edit &E : N.Edits)
    Edits.push_back(editJson(E));
  nlohmann::json Ranges = nlohmann::json::array();
  for (const LineRange &R : N.Ranges)
    Ranges.push_back({R.First + 1, R.Last + 1});
  return {{"format", "asmevo-node"},
          {"format_version", kNodeFormatVersion},
          {"id", N.Id},
          {"parent", N.Parent},
          {"sources", N.Sources},
          {"driver", N.Driver},
          {"edits", Edits},
          {"edited_lines", Ranges},
          {"candidate_sha256", N.CandidateHash},
          {"object_sha256", N.ObjectSha256},
          {"outcome", N.Outcome},
          {"stage", N.Stage},
          {"signature", N.Signature},
          {"message", N.Message},
          {"verified", N.Verified},
          {"committed", N.Committed},
          {"speedup", N.Speedup},
          {"k0_us", N.K0Us},
          {"us", N.Us},
          {"cv", N.Cv},
          {"threshold", N.Threshold},
          {"kind", N.Kind},
          {"backend", N.Backend},
          {"seconds", N.Seconds},
          {"best_before", N.BestBefore},
          {"origin", N.Origin},
          {"recorded_at", N.RecordedAt},
          {"speedups", N.Speedups},
          {"speedup_interval", speedupIntervalJson(N)},
          {"gate",
           {{"cv", N.Cv},
            {"gain_low", N.GainLow},
            {"gain_high", N.GainHigh},
            {"members", N.Speedups.size()},
            {"clearing", N.Clearing},
            {"point_commit", N.PointCommit}}}};
}

llvm::Expected<Node> parseNode(const nlohmann::json &J, const std::string &Source) {
  if (!J.is_object() || J.value("format", "") != "asmevo-node")
    return makeError("'" + Source + "': not a lineage node (format asmevo-node)");
  if (auto V = J.find("format_version");
      V != J.end() && !(V->is_number_integer() && V->get<int64_t>() == kNodeFormatVersion))
    return makeError("'" + Source + "': format asmevo-node version " + V->dump() +
                     "; this build reads version " + std::to_string(kNodeFormatVersion));
  Node N;
  try {
    N.Id = J.at("id").get<std::string>();
    N.Parent = J.at("parent").get<std::string>();
    N.Sources = J.at("sources").get<std::vector<std::string>>();
    N.Driver = J.at("driver").get<std::string>();
    for (const auto &E : J.at("edits")) {
      EditError Err;
      auto P = parseEdit(E, Source, Err);
      if (!P)
        return makeError("'" + Source + "': " + Err.Message);
      N.Edits.push_back(std::move(*P));
    }
    for (const auto &R : J.at("edited_lines")) {
      size_t First = R.at(0).get<size_t>(), Last = R.at(1).get<size_t>();
      if (First == 0 || Last < First)
        return makeError("'" + Source + "': malformed lineage node: edited lines " + R.dump() +
                         " are not a range of 1-based lines");
      N.Ranges.push_back(LineRange{First - 1, Last - 1});
    }
    N.CandidateHash = J.at("candidate_sha256").get<std::string>();
    N.ObjectSha256 = J.at("object_sha256").get<std::string>();
    N.Outcome = J.at("outcome").get<std::string>();
    N.Stage = J.at("stage").get<std::string>();
    N.Signature = J.at("signature").get<std::string>();
    N.Message = J.at("message").get<std::string>();
    N.Verified = J.at("verified").get<bool>();
    N.Committed = J.at("committed").get<bool>();
    N.Speedup = J.at("speedup").get<double>();
    N.K0Us = J.at("k0_us").get<double>();
    N.Us = J.at("us").get<double>();
    N.Cv = J.at("cv").get<double>();
    N.Threshold = J.at("threshold").get<double>();
    N.Kind = J.at("kind").get<std::string>();
    N.Backend = J.at("backend").get<std::string>();
    N.Seconds = J.at("seconds").get<double>();
    N.BestBefore = J.at("best_before").get<std::string>();
    N.Origin = J.value("origin", "");
    N.RecordedAt = J.value("recorded_at", 0.0);
    // Written since ensembles (a node of an older run has none).
    if (J.contains("speedups"))
      N.Speedups = J.at("speedups").get<std::vector<double>>();
    if (J.contains("gate")) {
      const nlohmann::json &G = J.at("gate");
      N.GainLow = G.value("gain_low", 0.0);
      N.GainHigh = G.value("gain_high", 0.0);
      N.Clearing = G.value("clearing", 0u);
      N.PointCommit = G.value("point_commit", false);
    }
  } catch (const nlohmann::json::exception &E) {
    return makeError("'" + Source + "': malformed lineage node: " + E.what());
  }
  return N;
}

using namespace detail;

namespace {

std::string idOf(uint64_t N) {
  char B[16];
  std::snprintf(B, sizeof B, "n%06llu", static_cast<unsigned long long>(N));
  return B;
}

} // namespace

llvm::Expected<RunRecord> Lineage::readRun(const std::string &Dir) {
  std::string RunJson = Dir + "/run.json";
  if (!llvm::sys::fs::exists(RunJson))
    return makeError("'" + Dir + "': not a search run directory (no run.json)");
  auto J = readJson(RunJson);
  if (!J)
    return J.takeError();
  if (!J->is_object() || !J->contains("format") || (*J)["format"] != "asmevo-run")
    return makeError("'" + RunJson + "': not a search run's record (format asmevo-run)");
  if (auto V = J->find("format_version");
      V != J->end() && !(V->is_number_integer() && V->get<int64_t>() == kRunFormatVersion))
    return makeError("'" + RunJson + "': format asmevo-run version " + V->dump() +
                     "; this build reads version " + std::to_string(kRunFormatVersion));
  RunRecord R;
  for (auto [Key, Field] : {std::pair<const char *, std::string *>{"k0", &R.Id.K0Path},
                            {"k0_sha256", &R.Id.K0Sha256},
                            {"kernel", &R.Id.Kernel},
                            {"spec_sha256", &R.Id.SpecSha256},
                            {"target", &R.Id.Target}}) {
    bool Optional = std::string(Key) == "target";
    if (!J->contains(Key) && Optional)
      continue;
    if (!J->contains(Key) || !(*J)[Key].is_string())
      return makeError("'" + RunJson + "': \"" + Key + "\" must be a string");
    *Field = (*J)[Key].get<std::string>();
  }
  if (J->contains("options") && !(*J)["options"].is_null()) {
    if (!(*J)["options"].is_object())
      return makeError("'" + RunJson + "': \"options\" must be an object");
    R.Options = (*J)["options"];
  }
  return R;
}

llvm::Error Lineage::sameRun(const RunRecord &Run, const std::string &Dir, const RunIdentity &Id) {
  if (Run.Id.K0Sha256 != Id.K0Sha256)
    return makeError("run directory '" + Dir + "' is a search of another K0 (" + Run.Id.K0Path +
                     ", SHA-256 " + shortSha(Run.Id.K0Sha256) + "), not of '" + Id.K0Path + "' (" +
                     shortSha(Id.K0Sha256) + "): use another --run-dir");
  if (Run.Id.Kernel != Id.Kernel || Run.Id.SpecSha256 != Id.SpecSha256)
    return makeError(
        "run directory '" + Dir +
        "' was started with another kernel, launch spec or captures: use another --run-dir");
  return llvm::Error::success();
}

llvm::Expected<Lineage> Lineage::open(const std::string &Dir, const RunIdentity &Id, bool Resume,
                                      const nlohmann::json &Options) {
  Lineage L;
  L.Dir = Dir;
  std::string RunJson = Dir + "/run.json";
  const char *What = "one asmevo-agent at a time on a run directory";
  if (Resume)
    if (llvm::Error E = resumable(Dir))
      return std::move(E);
  if (llvm::sys::fs::exists(RunJson)) {
    // Read and check everything under a read lock, which writes nothing; only then take the
    // run and repair it.
    auto Lk = FileLock::acquireExistingShared(Dir + "/lock", What);
    if (!Lk)
      return Lk.takeError();
    L.Lock = std::move(*Lk);
    auto Run = readRun(Dir);
    if (!Run)
      return Run.takeError();
    if (llvm::Error E = sameRun(*Run, Dir, Id))
      return std::move(E);
    if (!Resume)
      return makeError("run directory '" + Dir +
                       "' already holds a search of this K0: continue it with --resume, or "
                       "use another --run-dir");
    Survey S;
    if (llvm::Error E = L.survey(S))
      return std::move(E);
    if (L.Lock.held()) {
      if (llvm::Error E = L.Lock.upgrade(What))
        return std::move(E);
    } else {
      auto X = FileLock::acquire(Dir + "/lock", What);
      if (!X)
        return X.takeError();
      L.Lock = std::move(*X);
    }
    if (llvm::Error E = L.repair(S))
      return std::move(E);
    return L;
  }
  if (llvm::sys::fs::exists(Dir)) {
    std::error_code EC;
    llvm::sys::fs::directory_iterator It(Dir, EC);
    if (!EC && It != llvm::sys::fs::directory_iterator())
      return makeError("run directory '" + Dir +
                       "' exists and is not a search run (no run.json): use an empty or new "
                       "directory");
  }
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir + "/nodes"))
    return makeError("'" + Dir + "': cannot create the run directory: " + EC.message());
  auto Lk = FileLock::acquire(Dir + "/lock", What);
  if (!Lk)
    return Lk.takeError();
  L.Lock = std::move(*Lk);
  nlohmann::json J = {{"format", "asmevo-run"}, {"format_version", kRunFormatVersion},
                      {"k0", Id.K0Path},        {"k0_sha256", Id.K0Sha256},
                      {"kernel", Id.Kernel},    {"spec_sha256", Id.SpecSha256},
                      {"target", Id.Target},    {"options", Options}};
  if (llvm::Error E = writeFileAtomic(RunJson, dumpJson(J, 2) + "\n"))
    return std::move(E);
  return L;
}

const Node *Lineage::node(const std::string &Id) const {
  auto It = Nodes.find(Id);
  return It == Nodes.end() ? nullptr : &It->second;
}

const Node *Lineage::best() const { return BestId.empty() ? nullptr : node(BestId); }

llvm::Expected<std::string> Lineage::newNode() {
  std::string Id = idOf(NextId++);
  if (std::error_code EC = llvm::sys::fs::create_directories(nodeDir(Id)))
    return makeError("'" + nodeDir(Id) + "': cannot create: " + EC.message());
  return Id;
}

llvm::Error Lineage::journal(nlohmann::json Event) {
  Event["seq"] = Events;
  std::string Line = dumpJson(Event) + "\n";
  std::string P = Dir + "/journal.jsonl";
  int Fd = ::open(P.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (Fd < 0)
    return makeError("'" + P + "': cannot open the journal: " + std::strerror(errno));
  size_t Done = 0;
  while (Done < Line.size()) {
    ssize_t W = ::write(Fd, Line.data() + Done, Line.size() - Done);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0) {
      std::string Why = std::strerror(errno);
      // A partial line would be torn: cut it back so the journal stays whole.
      if (Done)
        (void)::ftruncate(Fd, ::lseek(Fd, 0, SEEK_END) - off_t(Done));
      ::close(Fd);
      return makeError("'" + P + "': cannot append to the journal: " + Why);
    }
    Done += size_t(W);
  }
  int S = ::fsync(Fd);
  ::close(Fd);
  if (S != 0)
    return makeError("'" + P + "': cannot sync the journal: " + std::strerror(errno));
  ++Events;
  return llvm::Error::success();
}

llvm::Error Lineage::writeBest(bool *Wrote) const {
  if (BestId.empty())
    return llvm::Error::success();
  const Node &B = Nodes.at(BestId);
  if (llvm::Error E = checkObject(B, nodeDir(BestId), ", the best,"))
    return E;
  for (const char *Ext : {"s", "hsaco"}) {
    auto Src = readFile(nodeDir(BestId) + "/cand." + Ext);
    if (!Src)
      return Src.takeError();
    std::string To = Dir + "/best." + Ext;
    if (auto Old = readFile(To); Old && (*Old)->getBuffer() == (*Src)->getBuffer())
      continue;
    else if (!Old)
      llvm::consumeError(Old.takeError());
    if (llvm::Error E = writeFileAtomic(To, (*Src)->getBuffer()))
      return E;
    if (Wrote)
      *Wrote = true;
  }
  return llvm::Error::success();
}

llvm::Error Lineage::record(const Node &Rec) {
  Node N = Rec;
  if (N.RecordedAt == 0)
    N.RecordedAt =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // node.json first: once it is there the node (and a commit) survives any kill; the journal's
  // event carries the whole record too, so that a node.json lost later is rebuilt exactly;
  // best.s and best.hsaco follow, and --resume writes them again from the best node.
  nlohmann::json NJ = nodeJson(N);
  if (llvm::Error E = writeFileAtomic(nodeDir(N.Id) + "/node.json", dumpJson(NJ, 2) + "\n"))
    return E;
  Nodes[N.Id] = N;
  bool NewBest = N.Committed && (BestId.empty() || N.Speedup > Nodes[BestId].Speedup);
  std::string Before = BestId;
  if (NewBest)
    BestId = N.Id;
  if (llvm::Error E = journal({{"event", "node"},
                               {"id", N.Id},
                               {"parent", N.Parent},
                               {"outcome", N.Outcome},
                               {"committed", N.Committed},
                               {"speedup", N.Speedup},
                               {"node", std::move(NJ)}}))
    return E;
  if (!NewBest)
    return llvm::Error::success();
  if (llvm::Error E = writeBest()) {
    BestId = Before; // an object that is not the verified one never becomes K*
    return E;
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> Lineage::import(Node N, const std::string &Src) {
  // Checked before anything is made: an object that is not the verified one is never imported.
  if (N.Verified)
    if (llvm::Error E = checkObject(
            N, Src,
            " of '" + llvm::sys::path::parent_path(llvm::sys::path::parent_path(Src)).str() + "'"))
      return std::move(E);
  auto Id = newNode();
  if (!Id)
    return Id.takeError();
  N.Id = *Id;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Src, EC), E; It != E && !EC; It.increment(EC)) {
    std::string Name = llvm::sys::path::filename(It->path()).str();
    if (Name == "node.json")
      continue;
    auto B = readFile(It->path());
    if (!B)
      return B.takeError();
    if (llvm::Error E = writeFileAtomic(nodeDir(N.Id) + "/" + Name, (*B)->getBuffer()))
      return std::move(E);
  }
  if (EC)
    return makeError("'" + Src + "': " + EC.message());
  if (llvm::Error E = record(N))
    return std::move(E);
  return N.Id;
}

llvm::Expected<RunIdentity> Lineage::identity(const std::string &Dir) {
  auto R = readRun(Dir);
  if (!R)
    return R.takeError();
  return R->Id;
}

llvm::Expected<Lineage::Snapshot> Lineage::read(const std::string &Dir, bool Lock) {
  Snapshot S;
  auto Run = readRun(Dir);
  if (!Run)
    return Run.takeError();
  S.Id = std::move(Run->Id);
  if (Lock) {
    auto Lk = FileLock::acquireExistingShared(Dir + "/lock", "its search is still running");
    if (!Lk)
      return Lk.takeError();
    S.Held = std::move(*Lk);
  }
  // What a resume would find, read without changing anything: a node the journal names is
  // there even where its node.json is missing.
  Lineage L;
  L.Dir = Dir;
  Survey Sv;
  if (llvm::Error E = L.survey(Sv))
    return std::move(E);
  S.Nodes = std::move(Sv.Nodes);
  return S;
}

} // namespace asmevo::search
