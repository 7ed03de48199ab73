// Team mode (search/Team.h): the members' start points and the merge of their lineages.
#include "search/Team.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <map>

namespace asmevo::search {

namespace {

llvm::Error sameRun(const RunIdentity &Run, const std::string &Dir, const RunIdentity &Id) {
  if (Run.K0Sha256 != Id.K0Sha256 || Run.Kernel != Id.Kernel || Run.SpecSha256 != Id.SpecSha256)
    return makeError("run directory '" + Dir +
                     "' is a search of another K0, kernel or launch spec than this one");
  return llvm::Error::success();
}

// A directory's canonical path (symlinks and '..' resolved), or the path as given.
std::string canonical(const std::string &Dir) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Dir, Real))
    return Dir;
  return Real.str().str();
}

} // namespace

llvm::Error checkTeamFrom(const std::string &Team, const std::string &RunDir,
                          const RunIdentity &Id) {
  if (!llvm::sys::fs::exists(Team))
    return makeError("--team-from '" + Team + "': no such directory");
  if (!llvm::sys::fs::is_directory(Team))
    return makeError("--team-from '" + Team + "': not a directory");
  // (Its own directory would also release its own lock: record locks are per process.)
  if (llvm::sys::fs::exists(RunDir) && canonical(Team) == canonical(RunDir))
    return makeError("--team-from '" + Team + "' is this run's own directory");
  auto Run = Lineage::readRun(Team);
  if (!Run)
    return makeError("--team-from: " + llvm::toString(Run.takeError()));
  return sameRun(Run->Id, Team, Id);
}

llvm::Expected<std::optional<TeamStart>> teamStart(const std::string &Team, unsigned Member,
                                                   const RunIdentity &Id) {
  auto S = Lineage::read(Team, /*Lock=*/true);
  if (!S)
    return S.takeError();
  if (llvm::Error E = sameRun(S->Id, Team, Id))
    return std::move(E);
  std::vector<const Node *> V;
  for (const auto &[NId, N] : S->Nodes)
    if (N.Verified && NId != "n000000")
      V.push_back(&N);
  if (V.empty())
    return std::nullopt;
  std::stable_sort(V.begin(), V.end(), [](const Node *A, const Node *B) {
    return A->Committed != B->Committed ? A->Committed : A->Speedup > B->Speedup;
  });
  const Node *P = V[Member % V.size()];
  TeamStart T;
  T.N = *P;
  T.Dir = Team + "/nodes/" + P->Id;
  T.N.Parent = "n000000";
  T.N.Sources.clear();
  T.N.Driver = "team-start";
  T.N.Committed = true;
  T.N.Origin = Team + ":" + P->Id;
  T.N.BestBefore = "n000000";
  T.N.Message = "team member " + std::to_string(Member) + " starts from node " + P->Id + " of '" +
                Team + "' (" + fixed(P->Speedup, 4) + "x, verified there)";
  return T;
}

Report mergeTeam(const std::string &Team, const std::vector<std::string> &Members,
                 const std::string &Tool) {
  Report R;
  R.Tool = Tool;
  auto Fail = [&](llvm::Error E) {
    R.fail(std::move(E));
    return R;
  };
  // Each member once, and never the team itself (its lock is this process's: reading it as a
  // member would release it); spellings and symlinks resolved.
  std::map<std::string, std::string> Seen{{canonical(Team), "--run-dir '" + Team + "'"}};
  for (const std::string &M : Members) {
    if (!llvm::sys::fs::is_directory(M))
      return Fail(makeError(
          "'" + M + "': " + (llvm::sys::fs::exists(M) ? "not a directory" : "no such directory") +
          ": a member must be a search run directory"));
    auto [It, New] = Seen.emplace(canonical(M), "member '" + M + "'");
    if (!New)
      return Fail(makeError("--merge: member '" + M + "' is the same directory as " + It->second +
                            ": give each member once, and not the team"));
  }
  auto TeamId = Lineage::identity(Team);
  if (!TeamId)
    return Fail(TeamId.takeError());
  const RunIdentity &Id = *TeamId;
  // The members read (and checked, their locks held) before the team is changed at all.
  std::vector<Lineage::Snapshot> Snaps;
  for (const std::string &M : Members) {
    auto S = Lineage::read(M, /*Lock=*/true);
    if (!S)
      return Fail(S.takeError());
    if (llvm::Error E = sameRun(S->Id, M, Id))
      return Fail(std::move(E));
    Snaps.push_back(std::move(*S));
  }
  auto L = Lineage::open(Team, Id, /*Resume=*/true, nlohmann::json());
  if (!L)
    return Fail(L.takeError());
  for (const std::string &X : L->repairs())
    R.Notes.push_back("repaired: " + X);
  for (const std::string &X : L->warnings())
    R.Notes.push_back("warning: " + X);
  std::map<std::string, std::string> ByHash; // candidate SHA-256 -> node id in Team
  for (const auto &[NId, N] : L->nodes())
    ByHash.emplace(N.CandidateHash, NId);
  nlohmann::json Brought = nlohmann::json::array();
  for (size_t I = 0; I < Members.size(); ++I) {
    const std::string &M = Members[I];
    const Lineage::Snapshot *S = &Snaps[I];
    std::map<std::string, std::string> Map{{"n000000", "n000000"}};
    uint64_t New = 0, Commits = 0, Known = 0;
    for (const auto &[MId, MN] : S->Nodes) { // ids ascend: a parent before its children
      if (MId == "n000000")
        continue;
      if (auto It = ByHash.find(MN.CandidateHash); It != ByHash.end()) {
        Map[MId] = It->second;
        ++Known;
        continue;
      }
      Node N = MN;
      auto MapId = [&](const std::string &X) {
        auto It = Map.find(X);
        return It == Map.end() ? std::string() : It->second;
      };
      N.Parent = MapId(MN.Parent);
      for (std::string &Src : N.Sources)
        Src = MapId(Src);
      N.BestBefore = MapId(MN.BestBefore);
      if (N.Origin.empty())
        N.Origin = M + ":" + MId;
      auto NewId = L->import(N, M + "/nodes/" + MId);
      if (!NewId)
        return Fail(NewId.takeError());
      Map[MId] = *NewId;
      ByHash.emplace(N.CandidateHash, *NewId);
      ++New;
      Commits += N.Committed;
    }
    if (llvm::Error E = L->journal({{"event", "merge"},
                                    {"member", M},
                                    {"nodes", New},
                                    {"commits", Commits},
                                    {"known", Known}}))
      return Fail(std::move(E));
    Brought.push_back({{"member", M}, {"nodes", New}, {"commits", Commits}, {"known", Known}});
  }
  const Node *B = L->best();
  const Node *Root = L->node("n000000");
  if (!B || !Root)
    return Fail(makeError("run directory '" + Team + "' has no committed node"));
  std::map<std::string, uint64_t> Outcomes;
  uint64_t Commits = 0;
  for (const auto &[NId, N] : L->nodes())
    if (NId != "n000000") {
      ++Outcomes[N.Outcome];
      Commits += N.Committed;
    }
  std::string Kind = B->Kind.empty() ? Root->Kind : B->Kind;
  R.Backend = B->Backend.empty() ? Root->Backend : B->Backend;
  R.Body = {{"k0", Id.K0Path},
            {"kernel", Id.Kernel},
            {"target", Id.Target},
            {"run_dir", Team},
            {"kstar", B->Id == "n000000" ? Id.K0Path : Team + "/best.hsaco"},
            {"kstar_asm", Team + "/best.s"},
            {"best_node", B->Id},
            {"speedup", B->Speedup},
            {"kind", Kind},
            {"label", Kind == "modeled" ? "modeled, not measured" : "measured"},
            {"k0_us", Root->Us},
            {"kstar_us", B->Us},
            {"driver", "team"},
            {"candidates", L->nodes().size() - 1},
            {"commits", Commits},
            {"outcomes", Outcomes},
            {"members", Brought},
            {"stopped_by", "merged " + std::to_string(Members.size()) + " team members"},
            {"journal_events", L->journalEvents()}};
  R.Message = "merged " + std::to_string(Members.size()) + " team members into '" + Team +
              "': best " + fixed(B->Speedup, 4) + "x over K0 (" +
              (Kind == "modeled" ? "modeled, not measured" : "measured") + ", " + R.Backend +
              ") at node " + B->Id + " after " + std::to_string(L->nodes().size() - 1) +
              " candidates";
  if (llvm::Error E = writeFileAtomic(Team + "/summary.json", R.json().dump(2) + "\n"))
    return Fail(std::move(E));
  return R;
}

} // namespace asmevo::search
