#include "search/Lineage.h"

#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <unistd.h>

namespace asmevo::search {

nlohmann::json nodeJson(const Node &N) {
  nlohmann::json Edits = nlohmann::json::array();
  for (const Edit &E : N.Edits)
    Edits.push_back(editJson(E));
  nlohmann::json Ranges = nlohmann::json::array();
  for (const LineRange &R : N.Ranges)
    Ranges.push_back({R.First + 1, R.Last + 1});
  return {{"format", "asmevo-node"},
          {"format_version", 1},
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
          {"recorded_at", N.RecordedAt}};
}

llvm::Expected<Node> parseNode(const nlohmann::json &J, const std::string &Source) {
  if (!J.is_object() || J.value("format", "") != "asmevo-node")
    return makeError("'" + Source + "': not a lineage node (format asmevo-node)");
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
    for (const auto &R : J.at("edited_lines"))
      N.Ranges.push_back(LineRange{R.at(0).get<size_t>() - 1, R.at(1).get<size_t>() - 1});
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
  } catch (const nlohmann::json::exception &E) {
    return makeError("'" + Source + "': malformed lineage node: " + E.what());
  }
  return N;
}

namespace {

llvm::Expected<nlohmann::json> readJson(const std::string &Path) {
  auto B = readFile(Path);
  if (!B)
    return B.takeError();
  llvm::StringRef T = (*B)->getBuffer();
  nlohmann::json J = nlohmann::json::parse(T.begin(), T.end(), nullptr, false);
  if (J.is_discarded())
    return makeError("'" + Path + "': not valid JSON");
  return J;
}

// The node directories' names under Dir/nodes, in order.
llvm::Expected<std::vector<std::string>> nodeIds(const std::string &Dir) {
  std::error_code EC;
  std::vector<std::string> Ids;
  for (llvm::sys::fs::directory_iterator It(Dir + "/nodes", EC), E; It != E && !EC;
       It.increment(EC))
    Ids.push_back(llvm::sys::path::filename(It->path()).str());
  if (EC)
    return makeError("'" + Dir + "/nodes': " + EC.message());
  std::sort(Ids.begin(), Ids.end());
  return Ids;
}

llvm::Expected<Node> readNode(const std::string &Path) {
  auto J = readJson(Path);
  if (!J)
    return J.takeError();
  return parseNode(*J, Path);
}

std::string idOf(uint64_t N) {
  char B[16];
  std::snprintf(B, sizeof B, "n%06llu", static_cast<unsigned long long>(N));
  return B;
}

} // namespace

llvm::Expected<Lineage> Lineage::open(const std::string &Dir, const RunIdentity &Id, bool Resume,
                                      const nlohmann::json &Options) {
  Lineage L;
  L.Dir = Dir;
  std::string RunJson = Dir + "/run.json";
  bool Exists = llvm::sys::fs::exists(RunJson);
  auto TakeLock = [&]() -> llvm::Error {
    auto Lk = FileLock::acquire(Dir + "/lock", "one asmevo-agent at a time on a run directory");
    if (!Lk)
      return Lk.takeError();
    L.Lock = std::move(*Lk);
    return llvm::Error::success();
  };
  if (Exists) {
    if (llvm::Error E = TakeLock())
      return std::move(E);
    auto J = readJson(RunJson);
    if (!J)
      return J.takeError();
    std::string Sha = J->value("k0_sha256", "");
    if (Sha != Id.K0Sha256)
      return makeError("run directory '" + Dir + "' is a search of another K0 (" +
                       J->value("k0", std::string("?")) + ", SHA-256 " + Sha.substr(0, 12) +
                       "...), not of '" + Id.K0Path + "' (" + Id.K0Sha256.substr(0, 12) +
                       "...): use another --run-dir");
    if (J->value("kernel", "") != Id.Kernel || J->value("spec_sha256", "") != Id.SpecSha256)
      return makeError("run directory '" + Dir +
                       "' was started with another kernel or launch spec: use another --run-dir");
    if (!Resume)
      return makeError("run directory '" + Dir +
                       "' already holds a search of this K0: continue it with --resume, or "
                       "use another --run-dir");
  } else {
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
    if (llvm::Error E = TakeLock())
      return std::move(E);
    nlohmann::json J = {{"format", "asmevo-run"}, {"format_version", 1},
                        {"k0", Id.K0Path},        {"k0_sha256", Id.K0Sha256},
                        {"kernel", Id.Kernel},    {"spec_sha256", Id.SpecSha256},
                        {"target", Id.Target},    {"options", Options}};
    if (llvm::Error E = writeFileAtomic(RunJson, J.dump(2) + "\n"))
      return std::move(E);
  }
  // The journal: cut a torn last line (a kill in the middle of an append).
  std::string JPath = Dir + "/journal.jsonl";
  std::set<std::string> Journaled;
  if (llvm::sys::fs::exists(JPath)) {
    auto B = readFile(JPath);
    if (!B)
      return B.takeError();
    llvm::StringRef T = (*B)->getBuffer();
    size_t Keep = T.rfind('\n');
    Keep = Keep == llvm::StringRef::npos ? 0 : Keep + 1;
    if (Keep != T.size() && ::truncate(JPath.c_str(), off_t(Keep)) != 0)
      return makeError("'" + JPath + "': cannot cut the torn last line: " + std::strerror(errno));
    llvm::SmallVector<llvm::StringRef> Lines;
    T.substr(0, Keep).split(Lines, '\n', -1, false);
    for (llvm::StringRef Line : Lines) {
      nlohmann::json E = nlohmann::json::parse(Line.begin(), Line.end(), nullptr, false);
      if (E.is_discarded())
        return makeError("'" + JPath + "': line " + std::to_string(L.Events + 1) + " is not JSON");
      ++L.Events;
      if (E.value("event", "") == "node")
        Journaled.insert(E.value("id", ""));
    }
  }
  // The nodes: complete ones (node.json) loaded, incomplete ones removed.
  auto Ids = nodeIds(Dir);
  if (!Ids)
    return Ids.takeError();
  for (const std::string &NId : *Ids) {
    std::string P = L.nodeDir(NId) + "/node.json";
    uint64_t Num = 0;
    if (NId.size() > 1 && !llvm::StringRef(NId).drop_front().getAsInteger(10, Num))
      L.NextId = std::max(L.NextId, Num + 1);
    if (!llvm::sys::fs::exists(P)) {
      if (std::error_code RC = llvm::sys::fs::remove_directories(L.nodeDir(NId)))
        return makeError("'" + L.nodeDir(NId) + "': cannot remove: " + RC.message());
      ++L.Removed;
      continue;
    }
    auto N = readNode(P);
    if (!N)
      return N.takeError();
    L.Nodes[N->Id] = std::move(*N);
  }
  for (auto &[NId, N] : L.Nodes) {
    if (N.Committed && (L.BestId.empty() || N.Speedup > L.Nodes[L.BestId].Speedup))
      L.BestId = NId;
    if (!Journaled.count(NId)) {
      L.Recovered.push_back(NId);
      if (llvm::Error E = L.journal({{"event", "node"},
                                     {"id", NId},
                                     {"outcome", N.Outcome},
                                     {"committed", N.Committed},
                                     {"speedup", N.Speedup},
                                     {"recovered", true}}))
        return std::move(E);
    }
  }
  if (llvm::Error E = L.writeBest())
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
  std::string Line = Event.dump() + "\n";
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

llvm::Error Lineage::writeBest() const {
  if (BestId.empty())
    return llvm::Error::success();
  for (const char *Ext : {"s", "hsaco"}) {
    auto B = readFile(nodeDir(BestId) + "/cand." + Ext);
    if (!B)
      return B.takeError();
    if (llvm::Error E = writeFileAtomic(Dir + "/best." + Ext, (*B)->getBuffer()))
      return E;
  }
  return llvm::Error::success();
}

llvm::Error Lineage::record(const Node &Rec) {
  Node N = Rec;
  if (N.RecordedAt == 0)
    N.RecordedAt =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // node.json first: once it is there the node (and a commit) survives any kill; best.s and
  // best.hsaco follow, and --resume writes them again from the best node.
  if (llvm::Error E = writeFileAtomic(nodeDir(N.Id) + "/node.json", nodeJson(N).dump(2) + "\n"))
    return E;
  Nodes[N.Id] = N;
  bool NewBest = N.Committed && (BestId.empty() || N.Speedup > Nodes[BestId].Speedup);
  if (NewBest)
    BestId = N.Id;
  if (llvm::Error E = journal({{"event", "node"},
                               {"id", N.Id},
                               {"parent", N.Parent},
                               {"outcome", N.Outcome},
                               {"committed", N.Committed},
                               {"speedup", N.Speedup}}))
    return E;
  return NewBest ? writeBest() : llvm::Error::success();
}

llvm::Expected<std::string> Lineage::import(Node N, const std::string &Src) {
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
  std::string RunJson = Dir + "/run.json";
  if (!llvm::sys::fs::exists(RunJson))
    return makeError("'" + Dir + "': not a search run directory (no run.json)");
  auto J = readJson(RunJson);
  if (!J)
    return J.takeError();
  return RunIdentity{J->value("k0", ""), J->value("k0_sha256", ""), J->value("kernel", ""),
                     J->value("spec_sha256", ""), J->value("target", "")};
}

llvm::Expected<Lineage::Snapshot> Lineage::read(const std::string &Dir, bool Lock) {
  Snapshot S;
  auto Id = identity(Dir);
  if (!Id)
    return Id.takeError();
  S.Id = std::move(*Id);
  FileLock Held;
  if (Lock) {
    auto Lk = FileLock::acquire(Dir + "/lock", "its search is still running", /*Shared=*/true);
    if (!Lk)
      return Lk.takeError();
    Held = std::move(*Lk);
  }
  auto Ids = nodeIds(Dir);
  if (!Ids)
    return Ids.takeError();
  for (const std::string &NId : *Ids) {
    std::string P = Dir + "/nodes/" + NId + "/node.json";
    if (!llvm::sys::fs::exists(P))
      continue;
    auto N = readNode(P);
    if (!N)
      return N.takeError();
    S.Nodes[N->Id] = std::move(*N);
  }
  return S;
}

} // namespace asmevo::search
