// --resume: what a run directory holds, read and checked before anything is written
// (Lineage::survey), then made good (Lineage::repair), as search/Lineage.h says; and the reading
// back of its files (LineageIO.h).
#include "search/LineageIO.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace asmevo::search {

namespace detail {

std::string dumpJson(const nlohmann::json &J, int Indent) {
  return J.dump(Indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

llvm::Expected<nlohmann::json> parseJsonText(llvm::StringRef T, const std::string &Path,
                                             unsigned Line) {
  if (T.starts_with("\xEF\xBB\xBF"))
    return Line ? lineError(Path, Line,
                            "starts with a UTF-8 byte-order mark, which "
                            "asmevo-agent never writes (was it edited?)")
                : fileError(Path, 0,
                            "starts with a UTF-8 byte-order mark, which "
                            "asmevo-agent never writes (was it edited?)");
  size_t Bad = 0;
  if (!llvm::json::isUTF8(T, &Bad))
    return Line ? lineError(Path, Line,
                            "not valid UTF-8 (byte " + std::to_string(Bad + 1) + " of the line)")
                : fileError(Path, Bad, "not valid UTF-8");
  try {
    return nlohmann::json::parse(T.begin(), T.end());
  } catch (const nlohmann::json::exception &E) {
    std::string Why = E.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
    if (size_t P = Why.find("]: "); P != std::string::npos)
      Why = Why.substr(P + 3);
    else if (size_t Q = Why.find("] "); Q != std::string::npos)
      Why = Why.substr(Q + 2);
    if (size_t C = Why.find(": "); Why.rfind("parse error", 0) == 0 && C != std::string::npos)
      Why = Why.substr(C + 2);
    unsigned At = Line ? Line : 1;
    if (auto *PE = dynamic_cast<const nlohmann::json::parse_error *>(&E); PE && !Line)
      At += unsigned(std::count(T.begin(), T.begin() + std::min(T.size(), PE->byte), '\n'));
    return lineError(Path, At, "not valid JSON: " + llvm::StringRef(Why).take_front(160).str());
  }
}

llvm::Expected<nlohmann::json> readJson(const std::string &Path) {
  auto B = readFile(Path);
  if (!B)
    return B.takeError();
  return parseJsonText((*B)->getBuffer(), Path);
}

std::optional<uint64_t> nodeNumber(llvm::StringRef Name) {
  uint64_t N = 0;
  if (Name.size() < 7 || Name[0] != 'n' || Name.drop_front().getAsInteger(10, N) ||
      !llvm::all_of(Name.drop_front(), [](char C) { return C >= '0' && C <= '9'; }))
    return std::nullopt;
  return N;
}

llvm::Expected<std::vector<std::string>> nodeIds(const std::string &Dir) {
  std::error_code EC;
  std::vector<std::pair<uint64_t, std::string>> Ids;
  for (llvm::sys::fs::directory_iterator It(Dir + "/nodes", EC), E; It != E && !EC;
       It.increment(EC)) {
    std::string Name = llvm::sys::path::filename(It->path()).str();
    if (auto N = nodeNumber(Name); N && llvm::sys::fs::is_directory(It->path()))
      Ids.push_back({*N, Name});
  }
  if (EC)
    return makeError("'" + Dir + "/nodes': " + EC.message());
  std::sort(Ids.begin(), Ids.end());
  std::vector<std::string> Out;
  for (auto &[N, Name] : Ids)
    Out.push_back(std::move(Name));
  return Out;
}

llvm::Expected<Node> readNode(const std::string &Path, const std::string &Id) {
  auto J = readJson(Path);
  if (!J)
    return J.takeError();
  auto N = parseNode(*J, Path);
  if (N && N->Id != Id)
    return makeError("'" + Path + "': its id '" + N->Id + "' is not its directory's name ('" + Id +
                     "')");
  return N;
}

std::string fileSha(const std::string &Path, bool &Exists) {
  auto B = readFile(Path);
  Exists = bool(B);
  if (!B) {
    llvm::consumeError(B.takeError());
    return "";
  }
  return sha256Hex((*B)->getBuffer());
}

std::string shortSha(const std::string &S) { return S.substr(0, 12) + "..."; }

llvm::Error checkObject(const Node &N, const std::string &NodeDir, const std::string &Role) {
  if (N.ObjectSha256.empty())
    return llvm::Error::success();
  std::string P = NodeDir + "/cand.hsaco";
  bool Exists = false;
  std::string Sha = fileSha(P, Exists);
  if (!Exists)
    return makeError("'" + P + "': missing: node " + N.Id + Role + " has lost its verified object");
  if (Sha != N.ObjectSha256)
    return makeError("'" + P + "': SHA-256 " + shortSha(Sha) + ", not the " +
                     shortSha(N.ObjectSha256) + " that node " + N.Id + Role +
                     " recorded when it was verified: the object changed since, and is "
                     "never copied");
  return llvm::Error::success();
}

} // namespace detail

using namespace detail;

llvm::Error Lineage::survey(Survey &S) const {
  // The journal: every whole line an event; a torn last line (a kill in the middle of an
  // append) is the only damage a kill can do to it.
  S.JPath = Dir + "/journal.jsonl";
  if (llvm::sys::fs::exists(S.JPath)) {
    auto B = readFile(S.JPath);
    if (!B)
      return B.takeError();
    llvm::StringRef T = (*B)->getBuffer();
    S.JSize = T.size();
    size_t Keep = T.rfind('\n');
    S.JKeep = Keep == llvm::StringRef::npos ? 0 : Keep + 1;
    unsigned LineNo = 0;
    for (llvm::StringRef Rest = T.substr(0, S.JKeep); !Rest.empty();) {
      auto [Line, Next] = Rest.split('\n');
      Rest = Next;
      ++LineNo;
      if (Line.trim().empty())
        continue;
      auto E = parseJsonText(Line, S.JPath, LineNo);
      if (!E)
        return E.takeError();
      auto Bad = [&](const std::string &Why) { return lineError(S.JPath, LineNo, Why); };
      if (!E->is_object() || !E->contains("event") || !(*E)["event"].is_string())
        return Bad("not a journal event (a JSON object with a string \"event\")");
      ++S.Events;
      std::string Ev = (*E)["event"].get<std::string>();
      if (Ev != "node" && Ev != "commit")
        continue;
      const nlohmann::json &J = *E;
      if (!J.contains("id") || !J["id"].is_string() || !nodeNumber(J["id"].get<std::string>()))
        return Bad("a " + Ev + " event without a node id (\"id\": \"nNNNNNN\")");
      std::string Id = J["id"].get<std::string>();
      for (auto [Key, Ok] : {std::pair<const char *, bool>{"speedup", !J.contains("speedup") ||
                                                                          J["speedup"].is_number()},
                             {"committed", !J.contains("committed") || J["committed"].is_boolean()},
                             {"outcome", !J.contains("outcome") || J["outcome"].is_string()},
                             {"parent", !J.contains("parent") || J["parent"].is_string()},
                             {"node", !J.contains("node") || J["node"].is_object()}})
        if (!Ok)
          return Bad("the " + Ev + " event of " + Id + " has a malformed \"" + Key + "\"");
      S.NextId = std::max(S.NextId, *nodeNumber(Id) + 1);
      bool Commit = Ev == "commit" || J.value("committed", false);
      double Speedup = J.value("speedup", 0.0);
      if (Commit && (S.TopCommit.empty() || Speedup > S.TopSpeedup)) {
        S.TopCommit = Id;
        S.TopSpeedup = Speedup;
        S.TopLine = LineNo;
      }
      if (Ev == "node") {
        S.NodeEvent[Id] = J;
        S.NodeLine[Id] = LineNo;
      } else {
        S.CommitEvent[Id] = J;
      }
    }
  }
  // The nodes.
  auto Ids = nodeIds(Dir);
  if (!Ids)
    return Ids.takeError();
  std::optional<std::string> BestSha; // best.hsaco's, read once when needed
  for (const std::string &NId : *Ids) {
    S.NextId = std::max(S.NextId, *nodeNumber(NId) + 1);
    std::string ND = nodeDir(NId), P = ND + "/node.json";
    auto Ev = S.NodeEvent.find(NId);
    bool Full = Ev != S.NodeEvent.end() && Ev->second.contains("node");
    if (llvm::sys::fs::exists(P)) {
      auto N = readNode(P, NId);
      if (!N)
        return Full ? makeError(llvm::toString(N.takeError()) +
                                "; move it away and --resume rebuilds it from the journal")
                    : N.takeError();
      S.Nodes[NId] = std::move(*N);
      continue;
    }
    if (Ev != S.NodeEvent.end()) {
      // Named by the journal: a node, whatever its directory lacks.
      Node N;
      if (Full) {
        auto R = parseNode(Ev->second["node"], S.JPath);
        if (!R || R->Id != NId) {
          if (!R)
            llvm::consumeError(R.takeError());
          return lineError(S.JPath, S.NodeLine[NId],
                           "the node record of " + NId + " is malformed, and nodes/" + NId +
                               "/node.json is missing");
        }
        N = std::move(*R);
        S.Rebuilt[NId] = "exactly from the journal's record of it";
        S.Record[NId] = Ev->second["node"];
      } else {
        const nlohmann::json &E = Ev->second;
        N.Id = NId;
        N.Parent = E.value("parent", std::string());
        N.Outcome = E.value("outcome", std::string("?"));
        N.Committed = E.value("committed", false);
        N.Speedup = E.value("speedup", 0.0);
        N.Verified = N.Committed || N.Outcome == "ok" || N.Outcome == "slower";
        N.Stage = N.Verified ? "gate" : "";
        if (auto C = S.CommitEvent.find(NId); C != S.CommitEvent.end()) {
          N.Parent = C->second.value("parent", N.Parent);
          N.Kind = C->second.value("kind", std::string());
          N.Backend = C->second.value("backend", std::string());
        }
        if (NId == "n000000")
          N.Driver = "k0";
        if (auto B = readFile(ND + "/edit.json")) {
          nlohmann::json EJ = nlohmann::json::parse((*B)->getBuffer().begin(),
                                                    (*B)->getBuffer().end(), nullptr, false);
          for (const nlohmann::json &X : EJ.is_array() ? EJ : nlohmann::json::array({EJ})) {
            EditError Err;
            if (auto Ed = parseEdit(X, ND + "/edit.json", Err))
              N.Edits.push_back(std::move(*Ed));
          }
        } else {
          llvm::consumeError(B.takeError());
        }
        if (auto B = readFile(ND + "/cand.s"))
          N.CandidateHash = candidateHash((*B)->getBuffer().str());
        else
          llvm::consumeError(B.takeError());
        bool Has = false;
        std::string Sha = fileSha(ND + "/cand.hsaco", Has);
        N.ObjectSha256 = N.Verified ? Sha : "";
        N.Message = "rebuilt by --resume from the journal's events and the node's files (its "
                    "node.json was missing, and this journal predates whole node records): its "
                    "edited lines, times, threshold and failure signature are lost, and its "
                    "object's SHA-256 is the file's own";
        S.Rebuilt[NId] = "from the journal's events and the node's files, as far as they go (the "
                         "journal predates whole node records)";
      }
      S.Nodes[NId] = std::move(N);
      continue;
    }
    // Never named by the journal: a candidate a kill interrupted, unless it holds a verified
    // object (one that passed kernel-diffcheck, or K* itself), which is never removed.
    bool Has = false;
    std::string Sha = fileSha(ND + "/cand.hsaco", Has);
    if (Has && !BestSha) {
      bool BHas = false;
      BestSha = fileSha(Dir + "/best.hsaco", BHas);
    }
    bool Passed = false;
    if (auto B = readFile(ND + "/diffcheck.json")) {
      nlohmann::json D =
          nlohmann::json::parse((*B)->getBuffer().begin(), (*B)->getBuffer().end(), nullptr, false);
      Passed = D.is_object() && D.contains("outcome") && D["outcome"] == "ok";
    } else {
      llvm::consumeError(B.takeError());
    }
    if (Has && BestSha && !BestSha->empty() && Sha == *BestSha)
      S.Kept[NId] = "the same object as best.hsaco";
    else if (Has && Passed)
      S.Kept[NId] = "an object that passed kernel-diffcheck (its gate's decision was never "
                    "recorded)";
    else
      S.Remove.push_back(NId);
  }
  // The best: never behind a commit the journal names, and never an object other than the one
  // it recorded.
  for (const auto &[NId, N] : S.Nodes)
    if (N.Committed && (S.BestId.empty() || N.Speedup > S.Nodes[S.BestId].Speedup))
      S.BestId = NId;
  if (!S.TopCommit.empty() && (S.BestId.empty() || S.TopSpeedup > S.Nodes[S.BestId].Speedup)) {
    auto It = S.Nodes.find(S.TopCommit);
    std::string Where =
        It == S.Nodes.end()
            ? (llvm::sys::fs::exists(nodeDir(S.TopCommit))
                   ? "'" + nodeDir(S.TopCommit) + "' is kept outside the lineage"
                   : "'" + nodeDir(S.TopCommit) + "' is gone")
            : "'" + nodeDir(S.TopCommit) + "/node.json' does not record that commit";
    return lineError(S.JPath, S.TopLine,
                     "the journal commits node " + S.TopCommit + " at " + fixed(S.TopSpeedup, 4) +
                         "x, faster than every committed node on disk (" +
                         (S.BestId.empty()
                              ? std::string("none")
                              : S.BestId + ", " + fixed(S.Nodes[S.BestId].Speedup, 4) + "x") +
                         "), and " + Where + ": restore it; nothing was changed");
  }
  if (!S.BestId.empty()) {
    const Node &B = S.Nodes[S.BestId];
    if (llvm::Error E =
            checkObject(B, nodeDir(B.Id), ", the best (" + fixed(B.Speedup, 4) + "x),")) {
      bool Has = false;
      std::string Copy = fileSha(Dir + "/best.hsaco", Has);
      std::string Hint = Has && Copy == B.ObjectSha256
                             ? "; '" + Dir +
                                   "/best.hsaco' still holds the verified object: copy it back and "
                                   "--resume again"
                             : "; restore it from a copy to continue this run";
      return makeError(llvm::toString(std::move(E)) + Hint + " (nothing was changed)");
    }
  }
  return llvm::Error::success();
}

llvm::Error Lineage::repair(Survey &S) {
  Events = S.Events;
  NextId = std::max(NextId, S.NextId);
  if (S.JKeep != S.JSize) {
    if (::truncate(S.JPath.c_str(), off_t(S.JKeep)) != 0)
      return makeError("'" + S.JPath + "': cannot cut the torn last line: " + std::strerror(errno));
    Repairs.push_back("'" + S.JPath + "': cut a torn last line (" +
                      std::to_string(S.JSize - S.JKeep) +
                      " bytes: an append that a kill interrupted)");
  }
  for (const auto &[NId, How] : S.Rebuilt) {
    std::string P = nodeDir(NId) + "/node.json";
    auto It = S.Record.find(NId);
    const nlohmann::json &J = It != S.Record.end() ? It->second : nodeJson(S.Nodes[NId]);
    if (llvm::Error E = writeFileAtomic(P, dumpJson(J, 2) + "\n"))
      return E;
    Repairs.push_back("'" + P + "': rebuilt " + How + " (it was missing)");
  }
  for (const std::string &NId : S.Remove) {
    if (std::error_code RC = llvm::sys::fs::remove_directories(nodeDir(NId)))
      return makeError("'" + nodeDir(NId) + "': cannot remove: " + RC.message());
    ++Removed;
  }
  if (!S.Remove.empty()) {
    std::string List;
    for (const std::string &NId : S.Remove)
      List += (List.empty() ? "'" : ", '") + nodeDir(NId) + "'";
    Repairs.push_back("removed " + std::to_string(S.Remove.size()) + " candidate " +
                      (S.Remove.size() == 1 ? "directory" : "directories") +
                      " that a kill interrupted (no node.json, never in the journal, no "
                      "verified object): " +
                      List);
  }
  for (const auto &[NId, Why] : S.Kept)
    Warnings.push_back("'" + nodeDir(NId) +
                       "': kept as it is, outside the lineage: it has no node.json and the "
                       "journal never names it, but it holds " +
                       Why + "; remove it yourself if it is not needed");
  Nodes = std::move(S.Nodes);
  BestId = S.BestId;
  for (const auto &[NId, N] : Nodes) {
    if (S.NodeEvent.count(NId))
      continue;
    Recovered.push_back(NId);
    if (llvm::Error E = journal({{"event", "node"},
                                 {"id", NId},
                                 {"parent", N.Parent},
                                 {"outcome", N.Outcome},
                                 {"committed", N.Committed},
                                 {"speedup", N.Speedup},
                                 {"recovered", true},
                                 {"node", nodeJson(N)}}))
      return E;
  }
  if (!Recovered.empty()) {
    std::string List;
    for (const std::string &NId : Recovered)
      List += (List.empty() ? "" : ", ") + NId;
    Repairs.push_back("'" + S.JPath + "': journaled " + std::to_string(Recovered.size()) +
                      (Recovered.size() == 1 ? " node" : " nodes") +
                      " recorded just before a kill: " + List);
  }
  bool Wrote = false;
  if (llvm::Error E = writeBest(&Wrote))
    return E;
  if (Wrote)
    Repairs.push_back("'" + Dir + "/best.s', '" + Dir + "/best.hsaco': written again from node " +
                      BestId + ", the best (" + fixed(Nodes[BestId].Speedup, 4) +
                      "x; a kill came before they were)");
  return llvm::Error::success();
}

llvm::Error Lineage::resumable(const std::string &Dir) {
  if (!llvm::sys::fs::exists(Dir))
    return makeError("run directory '" + Dir +
                     "' does not exist: there is no search to --resume (leave --resume out to "
                     "start one)");
  if (!llvm::sys::fs::is_directory(Dir))
    return makeError("run directory '" + Dir + "' is not a directory");
  std::error_code EC;
  llvm::sys::fs::directory_iterator It(Dir, EC);
  if (!EC && It == llvm::sys::fs::directory_iterator())
    return makeError("run directory '" + Dir +
                     "' is empty: there is no search to --resume (leave --resume out to start "
                     "one there)");
  if (!llvm::sys::fs::exists(Dir + "/run.json"))
    return makeError("run directory '" + Dir +
                     "' holds no search (no run.json): there is nothing to --resume");
  return llvm::Error::success();
}

} // namespace asmevo::search
