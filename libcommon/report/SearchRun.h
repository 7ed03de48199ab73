// One search run directory (asmevo-agent --run-dir) read as it is on disk, for the report: the
// run's identity, every node that has a node.json, the journal's events, and for each commit the
// evidence the report shows (texts, the diffcheck and kernel-time reports). Nothing here is
// required: a file that is absent becomes one line of Missing, and so does the journal's torn
// last line, so that a run that was killed, is still running or was copied in part can still be
// shown. A file that is there must be what its name says (report/RunFiles.h): one that is not
// was damaged or replaced, and reading the run fails with an error that names it. The layout is
// search/Lineage.h's; this folder reads it with plain JSON and never links the search library.
#pragma once

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace asmevo::report {

// A modeled speedup's interval over the parameter sets of kernel-time's ensemble (node.json's
// "speedup_interval", time.json's "speedup").
struct SpeedupRange {
  double Min = 0, Median = 0, Max = 0;
  uint64_t Members = 0, Faster = 0; // parameter sets, and those where K is faster than K0
};

// nodes/<id>/node.json (format asmevo-node), read leniently: an absent key keeps its default.
struct NodeRecord {
  std::string Id, Parent, Driver, Outcome, Stage, Signature, Message, Kind, Backend, BestBefore;
  std::vector<std::string> Sources;
  bool Verified = false, Committed = false;
  double Speedup = 0, K0Us = 0, Us = 0, Cv = 0, Threshold = 0, Seconds = 0;
  double Recorded = 0; // node.json's recorded_at, else its modification time (epoch seconds)
  std::vector<std::pair<uint64_t, uint64_t>> EditedLines; // 1-based, inclusive
  nlohmann::json Edits = nlohmann::json::array();
  std::optional<SpeedupRange> Interval; // with an ensemble of more than one parameter set
  bool PointCommit = false; // the gate's point estimate passed (node.json's gate.point_commit)
};

// time.json: kernel-time's --json report on K0 and the candidate.
struct TimeEvidence {
  std::string Outcome, Message, Kind, Label, Backend, Basis, Interval;
  double K0Us = 0, Us = 0, K0Cv = 0, Cv = 0;
  bool HasMedian = false; // measured: the figures are medians over launches
  std::optional<double> Ratio, Low, High, Level;
  std::optional<double> Speedup;        // T(K0)/T(K1) at the nominal figures
  std::optional<SpeedupRange> Ensemble; // over the ensemble's parameter sets
};

// diffcheck.json: kernel-diffcheck's --json report.
struct CheckVerdict {
  std::string Outcome, Message, Backend;
  std::vector<uint64_t> Seeds;
};

// What the report shows of one commit.
struct CommitRecord {
  std::string Id;
  std::optional<std::string> Text, ParentText; // cand.s of the node and of its parent
  std::optional<TimeEvidence> Time;
  std::optional<CheckVerdict> Check;
  nlohmann::json Edit; // edit.json as written (null when absent)
};

struct SearchRun {
  std::string Dir;
  std::string Prefix;                     // how Missing names the files ("" or "<name>/search/")
  nlohmann::json Run;                     // run.json (null when absent)
  nlohmann::json Summary;                 // summary.json, asmevo-agent's report (null when absent)
  std::vector<NodeRecord> Nodes;          // by id; n000000 is the root (K0)
  std::vector<CommitRecord> Commits;      // committed nodes other than the root, by id
  std::optional<std::string> RootText;    // nodes/n000000/cand.s: K0's recovered assembly
  uint64_t JournalEvents = 0;             // the journal's whole lines
  std::map<std::string, uint64_t> Faults; // journal "fault" events: refused proposals per kind
  std::vector<std::string> Missing;       // "<file>: <what>", one per absent part

  const NodeRecord *node(const std::string &Id) const;
  uint64_t commits() const { return Commits.size(); }
};

// Dir exists and is a directory; else the error both readers give.
llvm::Error checkRunDirectory(const std::string &Dir);
// Read Dir as a search run. Prefix is put before every file name in Missing. Fails when Dir is
// not a directory or a file in it is damaged; every file inside it is optional.
llvm::Expected<SearchRun> readSearchRun(const std::string &Dir, const std::string &Prefix = "");

// kernel-time's and kernel-diffcheck's reports, as time.json and diffcheck.json hold them (File
// names the report in errors about its fields).
llvm::Expected<TimeEvidence> timeEvidence(const nlohmann::json &Report, const std::string &File);
llvm::Expected<CheckVerdict> checkVerdict(const nlohmann::json &Report, const std::string &File);

} // namespace asmevo::report
