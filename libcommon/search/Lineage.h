// The run directory of one search and its lineage: one node per candidate, written atomically,
// and an append-only journal. The layout:
//   run.json              the run's identity: K0 (path, SHA-256), kernel, spec (SHA-256), options
//   journal.jsonl         one JSON event per line, appended and fsync'ed: start, node, commit,
//                         redirect, backtrack, escalate, resume, stop
//   nodes/nNNNNN/         one per candidate: edit.json (as proposed), cand.s and cand.hsaco (kept
//                         for verified nodes; rebuilt from the parent and the edit otherwise),
//                         diffcheck.json and time.json (the tools' reports), node.json last
//   best.s, best.hsaco    the current best (K*), replaced atomically on every commit
// A node exists once its node.json does; a node directory without one is a candidate that was
// being evaluated when the run stopped, and --resume removes it. A commit is decided before its
// node.json is written, journaled after it, and best.* are written last; after a kill at any
// moment the committed nodes are the node.json files that say so, and --resume journals any the
// journal lacks and writes best.* again from the best of them.
// One controller at a time: open() takes an exclusive POSIX record lock on lock (support/
// FileLock.h: honoured on NFS, released when the holder dies) and holds it while the Lineage
// lives; a second asmevo-agent on the same directory is refused, naming the holder. Workers
// that evaluate candidates in other processes (--worker-launch) write only inside their own
// node directory, which the controller created; merging team members (search/Team.h) takes
// each member's lock too, so a member still running is never read half-way.
#pragma once

#include "search/Edit.h"
#include "support/FileLock.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace asmevo::search {

struct Node {
  std::string Id;                   // "n000007"; the root (K0) is "n000000"
  std::string Parent;               // the verified node the edits apply to ("" for the root)
  std::vector<std::string> Sources; // a composition: the nodes whose edits it combines
  std::string Driver;
  std::vector<Edit> Edits; // against Parent's text
  std::string CandidateHash, ObjectSha256;
  std::string Outcome = "ok"; // the gate's stage outcome, or "slower" (verified, not committed)
  std::string Stage, Signature, Message;
  bool Verified = false, Committed = false;
  double Speedup = 0, K0Us = 0, Us = 0, Cv = 0, Threshold = 0;
  std::string Kind, Backend;
  std::vector<LineRange> Ranges; // the edited 0-based lines of Parent's text
  double Seconds = 0;            // evaluation wall time
  std::string BestBefore;        // the best when it was gated
  std::string Origin;    // a node brought in from another run: "DIR:ID" ("" : evaluated here)
  double RecordedAt = 0; // when it was recorded (seconds since the epoch; kept by imports)
};

nlohmann::json nodeJson(const Node &N);
llvm::Expected<Node> parseNode(const nlohmann::json &J, const std::string &Source);

struct RunIdentity {
  std::string K0Path, K0Sha256, Kernel, SpecSha256, Target;
};

class Lineage {
public:
  // Create Dir for a new run (refused when it holds one: --resume), or, with Resume, reopen it:
  // refused when it is another K0's or kernel's or spec's; incomplete node directories removed,
  // a torn last journal line cut, nodes the journal lacks journaled.
  static llvm::Expected<Lineage> open(const std::string &Dir, const RunIdentity &Id, bool Resume,
                                      const nlohmann::json &Options);
  // The identity a run directory's run.json records.
  static llvm::Expected<RunIdentity> identity(const std::string &Dir);
  // The complete nodes of another run directory, read without changing it (incomplete node
  // directories skipped), and its identity. With Lock, its lock is taken while reading
  // (refused when a controller holds it).
  struct Snapshot {
    RunIdentity Id;
    std::map<std::string, Node> Nodes;
  };
  static llvm::Expected<Snapshot> read(const std::string &Dir, bool Lock);

  const std::string &dir() const { return Dir; }
  std::string nodeDir(const std::string &Id) const { return Dir + "/nodes/" + Id; }
  const std::map<std::string, Node> &nodes() const { return Nodes; }
  const Node *node(const std::string &Id) const;
  const Node *best() const;
  // A fresh node id and its (empty) directory.
  llvm::Expected<std::string> newNode();
  // Record N (node.json atomically, then the journal); on a commit that is the fastest so far
  // also best.s/best.hsaco.
  llvm::Error record(const Node &N);
  // A node of another run (Src, its node directory) as a new node of this one: its files copied
  // into a fresh node directory, then N (with the new Id) recorded. Returns the new id.
  llvm::Expected<std::string> import(Node N, const std::string &Src);
  llvm::Error journal(nlohmann::json Event);
  uint64_t journalEvents() const { return Events; }
  std::vector<std::string> recovered() const { return Recovered; } // on --resume
  size_t removedIncomplete() const { return Removed; }

private:
  llvm::Error writeBest() const;
  std::string Dir;
  std::map<std::string, Node> Nodes;
  uint64_t NextId = 0, Events = 0;
  std::string BestId;
  FileLock Lock;
  std::vector<std::string> Recovered;
  size_t Removed = 0;
};

} // namespace asmevo::search
