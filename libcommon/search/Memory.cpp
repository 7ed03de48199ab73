// The run's bounded memory (search/Memory.h): what was tried, outcomes, signatures, insights.
#include "search/Memory.h"

#include <algorithm>
#include <vector>

namespace asmevo::search {

bool RunMemory::firstTime(const std::string &Hash) {
  std::string K = Hash.substr(0, 32);
  if (!Hashes.insert(K).second)
    return false;
  HashOrder.push_back(K);
  if (HashOrder.size() > L.Hashes) {
    Hashes.erase(HashOrder.front());
    HashOrder.pop_front();
    ++HashesDropped;
  }
  return true;
}

bool RunMemory::seen(const std::string &Hash) const { return Hashes.count(Hash.substr(0, 32)); }

void RunMemory::outcome(const std::string &Stage, const std::string &Outcome) {
  ++Outcomes[Stage.empty() ? Outcome : Stage + ":" + Outcome];
}

void RunMemory::failure(const std::string &Signature) {
  if (Signature.empty())
    return;
  auto It = Failures.find(Signature);
  if (It != Failures.end()) {
    ++It->second;
    return;
  }
  if (Failures.size() >= L.Signatures) {
    ++SignaturesDropped;
    return;
  }
  Failures[Signature] = 1;
}

void RunMemory::insight(const std::string &Text) {
  if (Text.empty())
    return;
  Insights.push_back(Text);
  if (Insights.size() > L.Insights)
    Insights.pop_front();
}

void RunMemory::badEdit(const std::string &Key) {
  if (BadEdits.size() < L.Hashes)
    BadEdits.insert(Key.substr(0, 32));
}

bool RunMemory::isBadEdit(const std::string &Key) const {
  return BadEdits.count(Key.substr(0, 32)) > 0;
}

nlohmann::json RunMemory::json(size_t TopFailures) const {
  std::vector<std::pair<std::string, uint64_t>> F(Failures.begin(), Failures.end());
  std::stable_sort(F.begin(), F.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  nlohmann::json Fs = nlohmann::json::array();
  for (size_t I = 0; I < F.size() && I < TopFailures; ++I)
    Fs.push_back({{"signature", F[I].first}, {"count", F[I].second}});
  return {{"tried", tried()},
          {"failed_edits", BadEdits.size()},
          {"outcomes", Outcomes},
          {"failures", Fs},
          {"failure_signatures_dropped", SignaturesDropped},
          {"insights", nlohmann::json(std::vector<std::string>(Insights.begin(), Insights.end()))}};
}

} // namespace asmevo::search
