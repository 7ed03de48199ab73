// The run directory of one search and its lineage: one node per candidate, written atomically,
// and an append-only journal. The layout:
//   run.json              the run's identity: K0 (path, SHA-256), kernel, spec (SHA-256), options
//   journal.jsonl         one JSON event per line, appended and fsync'ed: start, node, commit,
//                         fault, redirect (the controller backtracks), escalate, resume, stop,
//                         and in team mode team-start and merge; a node event carries the whole
//                         node record ("node", as node.json holds it)
//   nodes/nNNNNNN/        one per candidate: edit.json (as proposed), cand.s and cand.hsaco (kept
//                         for verified nodes; rebuilt from the parent and the edit otherwise),
//                         diffcheck.json and time.json (the tools' reports), node.json last
//   best.s, best.hsaco    the current best (K*), replaced atomically on every commit
// A node exists once its node.json does. A commit is decided before its node.json is written,
// journaled after it, and best.* are written last; after a kill at any moment the committed
// nodes are the node.json files that say so.
// --resume repairs what a kill leaves, and nothing else, and says what it did (repairs()):
// a torn last journal line is cut; a node whose node.json is missing but which the journal
// names is rebuilt (exactly from the journal's node record; from an older journal's events and
// the node's files as far as they go, saying so in its message); a node directory the journal
// never names and that holds no verified object (none that passed kernel-diffcheck, none equal
// to best.hsaco) is a candidate a kill interrupted, and is removed; one that holds one is kept
// and reported, never removed; nodes the journal lacks are journaled; best.* are written again
// where they differ from the best node's. Everything is read and checked before anything is
// written: a resume that refuses (a file that is not what asmevo-agent writes, a best node
// whose object no longer has its recorded SHA-256, a commit of the journal faster than every
// node on disk) changes nothing. An object is never copied to best.hsaco, nor imported into
// another run, unless its SHA-256 is the one its node recorded.
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

// The versions of node.json (asmevo-node) and run.json (asmevo-run) this code writes and reads;
// a file of another version is refused (share/asmevo/formats.md).
constexpr int kNodeFormatVersion = 1;
constexpr int kRunFormatVersion = 1;

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
  // A modeled speedup over the parameter sets of kernel-time's ensemble (timing/Ensemble.h): one
  // per set, member 0 the nominal figures and equal to Speedup (empty: measured, or a node
  // recorded before ensembles). The same sets for every node of a run, so they pair by index.
  std::vector<double> Speedups;
  // The gate's view of them (search/Gate.h): the least and most gain over the best, the sets
  // under which Eq. 2 held, and whether the point estimate alone passed.
  double GainLow = 0, GainHigh = 0;
  unsigned Clearing = 0;
  bool PointCommit = false;
  std::string Kind, Backend;
  std::vector<LineRange> Ranges; // the edited 0-based lines of Parent's text
  double Seconds = 0;            // evaluation wall time
  std::string BestBefore;        // the best when it was gated
  std::string Origin;    // a node brought in from another run: "DIR:ID" ("" : evaluated here)
  double RecordedAt = 0; // when it was recorded (seconds since the epoch; kept by imports)
};

nlohmann::json nodeJson(const Node &N);
// The interval of N's modeled speedup over K0 ({"members", "min", "median", "max",
// "faster_members"}: members with K* faster than K0), or null when N has no ensemble.
nlohmann::json speedupIntervalJson(const Node &N);
// "1.0420x" or, with an ensemble, "1.0420x [1.0100, 1.0800]" (the least and most over the sets).
std::string speedupText(const Node &N);
llvm::Expected<Node> parseNode(const nlohmann::json &J, const std::string &Source);

struct RunIdentity {
  std::string K0Path, K0Sha256, Kernel, SpecSha256, Target;
};

// What a run directory's run.json says: its identity and the options it was started with.
struct RunRecord {
  RunIdentity Id;
  nlohmann::json Options = nlohmann::json::object();
};

class Lineage {
public:
  // Create Dir for a new run (refused when it holds one: --resume), or, with Resume, reopen it:
  // refused when it does not exist, holds no run, or is another K0's or kernel's or spec's; then
  // repaired as the banner says.
  static llvm::Expected<Lineage> open(const std::string &Dir, const RunIdentity &Id, bool Resume,
                                      const nlohmann::json &Options);
  // Refused, saying why, when Dir holds no run to resume: missing, empty, no run.json.
  static llvm::Error resumable(const std::string &Dir);
  // Dir's run.json, checked, read only.
  static llvm::Expected<RunRecord> readRun(const std::string &Dir);
  // Refused when Run is another K0's, kernel's or spec's than Id.
  static llvm::Error sameRun(const RunRecord &Run, const std::string &Dir, const RunIdentity &Id);
  // The identity a run directory's run.json records.
  static llvm::Expected<RunIdentity> identity(const std::string &Dir);
  // The nodes of another run directory, read without changing it (as a resume would find them:
  // incomplete node directories skipped, nodes the journal names rebuilt in memory; refused
  // where a resume would be), and its identity. With Lock, its lock is taken while reading
  // (refused when a controller holds it) and held while the snapshot lives.
  struct Snapshot {
    RunIdentity Id;
    std::map<std::string, Node> Nodes;
    FileLock Held; // the read lock, while the snapshot lives
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
  // On --resume: one sentence per repair made (naming the file), and per thing found and left
  // as it is (a kept directory); empty when there was nothing to do.
  const std::vector<std::string> &repairs() const { return Repairs; }
  const std::vector<std::string> &warnings() const { return Warnings; }

private:
  struct Survey;
  llvm::Error survey(Survey &S) const;
  llvm::Error repair(Survey &S);
  // best.s and best.hsaco from the best node, where they differ; refused (nothing written) when
  // its object is not the one it recorded. Wrote: whether anything was written.
  llvm::Error writeBest(bool *Wrote = nullptr) const;
  std::string Dir;
  std::map<std::string, Node> Nodes;
  uint64_t NextId = 0, Events = 0;
  std::string BestId;
  FileLock Lock;
  std::vector<std::string> Recovered, Repairs, Warnings;
  size_t Removed = 0;
};

} // namespace asmevo::search
