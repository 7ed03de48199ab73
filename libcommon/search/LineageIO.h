// Reading back what a run directory holds, and writing it as the lineage does: shared by the
// lineage (Lineage.cpp) and its resume (LineageResume.cpp); not part of the library's interface.
#pragma once

#include "search/Lineage.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::search::detail {

// JSON as the lineage writes it. Never throws: a string that is not UTF-8 (only a driver's text
// could bring one) is written with U+FFFD in its place.
std::string dumpJson(const nlohmann::json &J, int Indent = -1);

// Text that asmevo-agent wrote, read back as JSON: refused, naming the file and where, when it
// starts with a byte-order mark (asmevo-agent writes none), is not UTF-8 or not JSON. Line:
// the text's first line in the file (a journal line; 0: the text is the whole file).
llvm::Expected<nlohmann::json> parseJsonText(llvm::StringRef T, const std::string &Path,
                                             unsigned Line = 0);
llvm::Expected<nlohmann::json> readJson(const std::string &Path);

// "n000007": a node directory's name; its number.
std::optional<uint64_t> nodeNumber(llvm::StringRef Name);
// The node directories under Dir/nodes, by number (so that a parent comes before its children);
// other entries are not the lineage's and are left alone.
llvm::Expected<std::vector<std::string>> nodeIds(const std::string &Dir);
// Path's node, refused unless its id is Id.
llvm::Expected<Node> readNode(const std::string &Path, const std::string &Id);

// A file's SHA-256 ("" and Exists false when it cannot be read), and its first 12 digits.
std::string fileSha(const std::string &Path, bool &Exists);
std::string shortSha(const std::string &S);

// The object of a verified node, checked against the SHA-256 it recorded before it is copied
// anywhere (Role: how the message names the node, ", the best,").
llvm::Error checkObject(const Node &N, const std::string &NodeDir, const std::string &Role);

} // namespace asmevo::search::detail

namespace asmevo::search {

// What a resume finds, read before anything is written (Lineage::survey), then made good
// (Lineage::repair).
struct Lineage::Survey {
  std::string JPath;
  size_t JKeep = 0, JSize = 0;
  uint64_t Events = 0;
  std::map<std::string, nlohmann::json> NodeEvent, CommitEvent; // the last of each, per node
  std::map<std::string, unsigned> NodeLine;
  std::string TopCommit; // the fastest commit the journal names, and its line
  double TopSpeedup = 0;
  unsigned TopLine = 0;
  std::map<std::string, Node> Nodes;
  std::map<std::string, std::string> Rebuilt;   // id -> how
  std::map<std::string, nlohmann::json> Record; // id -> node.json's text as the journal kept it
  std::vector<std::string> Remove;
  std::map<std::string, std::string> Kept; // id -> why
  uint64_t NextId = 0;
  std::string BestId;
};

} // namespace asmevo::search
