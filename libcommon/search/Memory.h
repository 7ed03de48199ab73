// The run's bounded memory (the paper's M): hashes of the candidates already tried (so nothing is
// evaluated twice), gate outcomes per stage, failure signatures with their counts, the insights
// of committed edits, and the windows a driver has exhausted. Everything is capped; what falls
// off the end is counted, not kept.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_set>

namespace asmevo::search {

struct MemoryLimits {
  size_t Hashes = 1u << 21, Signatures = 256, Insights = 64;
};

class RunMemory {
public:
  explicit RunMemory(MemoryLimits L = {}) : L(L) {}
  // True the first time Hash is seen (and remembers it), false for a repeat.
  bool firstTime(const std::string &Hash);
  bool seen(const std::string &Hash) const;
  void outcome(const std::string &Stage, const std::string &Outcome);
  void failure(const std::string &Signature);
  void insight(const std::string &Text);
  // An edit (its window's text and replacement) that failed a correctness gate: proposed again
  // from another node, it is skipped as a repeat.
  void badEdit(const std::string &Key);
  bool isBadEdit(const std::string &Key) const;
  // The context's "memory": outcomes, the most frequent failures, insights, counts.
  nlohmann::json json(size_t TopFailures = 20) const;
  const std::map<std::string, uint64_t> &outcomes() const { return Outcomes; }
  const std::map<std::string, uint64_t> &failures() const { return Failures; }
  size_t tried() const { return Hashes.size() + HashesDropped; }

private:
  MemoryLimits L;
  std::unordered_set<std::string> Hashes;
  std::deque<std::string> HashOrder;
  uint64_t HashesDropped = 0, SignaturesDropped = 0;
  std::map<std::string, uint64_t> Outcomes; // "diffcheck:divergent" -> count
  std::map<std::string, uint64_t> Failures; // signature -> count
  std::deque<std::string> Insights;
  std::unordered_set<std::string> BadEdits;
};

} // namespace asmevo::search
