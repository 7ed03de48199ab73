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
#pragma once

#include "search/Edit.h"

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

  const std::string &dir() const { return Dir; }
  std::string nodeDir(const std::string &Id) const { return Dir + "/nodes/" + Id; }
  const std::map<std::string, Node> &nodes() const { return Nodes; }
  const Node *node(const std::string &Id) const;
  const Node *best() const;
  // A fresh node id and its (empty) directory.
  llvm::Expected<std::string> newNode();
  // Record N (node.json atomically, then the journal); on a commit also best.s/best.hsaco.
  llvm::Error record(const Node &N);
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
  std::vector<std::string> Recovered;
  size_t Removed = 0;
};

} // namespace asmevo::search
