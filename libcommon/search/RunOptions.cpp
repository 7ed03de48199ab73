// The options run.json records (search/RunOptions.h), and how --resume checks and restores them.
#include "search/RunOptions.h"

#include "support/Error.h"
#include "support/Format.h"
#include "timing/Ensemble.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <functional>

namespace asmevo::search {

namespace {

// One recorded option: its run.json key, its command-line option, and O's value as JSON; Set
// takes a recorded value into O (false: not of the option's type).
struct RunOption {
  const char *Key, *Flag;
  bool Fixed;
  std::function<nlohmann::json(const AgentOptions &)> Get;
  std::function<bool(AgentOptions &, const nlohmann::json &)> Set;
};

template <typename T> bool take(const nlohmann::json &J, T &Into) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!J.is_string())
      return false;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!J.is_number())
      return false;
  } else {
    if (!J.is_number_unsigned())
      return false;
  }
  Into = J.get<T>();
  return true;
}

const std::vector<RunOption> &runOptions() {
  static const std::vector<RunOption> V = {
      {"backend", "--backend", true, [](const AgentOptions &O) { return O.Eval.Backend; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.Eval.Backend); }},
      {"seeds", "--seeds", true, [](const AgentOptions &O) { return O.Eval.Seeds; },
       [](AgentOptions &O, const nlohmann::json &J) {
         if (!J.is_array() || J.empty())
           return false;
         std::vector<uint64_t> S;
         for (const auto &X : J)
           if (!X.is_number_unsigned())
             return false;
           else
             S.push_back(X.get<uint64_t>());
         O.Eval.Seeds = S;
         return true;
       }},
      {"capture_weights", "--capture-weights", true,
       [](const AgentOptions &O) { return O.Eval.CaptureWeights; },
       [](AgentOptions &O, const nlohmann::json &J) {
         if (!J.is_array())
           return false;
         std::vector<double> W;
         for (const auto &X : J)
           if (!X.is_number() || !(X.get<double>() > 0))
             return false;
           else
             W.push_back(X.get<double>());
         O.Eval.CaptureWeights = W;
         return true;
       }},
      {"no_edge_shapes", "--no-edge-shapes", true,
       [](const AgentOptions &O) { return !O.Eval.EdgeShapes; },
       [](AgentOptions &O, const nlohmann::json &J) {
         if (!J.is_boolean())
           return false;
         O.Eval.EdgeShapes = !J.get<bool>();
         return true;
       }},
      {"epsilon", "--epsilon", true, [](const AgentOptions &O) { return O.Gate.Epsilon; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.Gate.Epsilon); }},
      {"k", "--gate-k", true, [](const AgentOptions &O) { return O.Gate.K; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.Gate.K); }},
      {"s_floor", "--s-floor", true, [](const AgentOptions &O) { return O.Gate.Floor; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.Gate.Floor); }},
      {"max_groups", "--max-groups", true,
       [](const AgentOptions &O) { return O.Eval.MaxSimulatedGroups; },
       [](AgentOptions &O, const nlohmann::json &J) {
         return take(J, O.Eval.MaxSimulatedGroups) && O.Eval.MaxSimulatedGroups > 0;
       }},
      {"ensemble", "--ensemble", true, [](const AgentOptions &O) { return O.Eval.Ensemble; },
       [](AgentOptions &O, const nlohmann::json &J) {
         return take(J, O.Eval.Ensemble) && O.Eval.Ensemble >= 1 &&
                O.Eval.Ensemble <= timing::kMaxEnsemble;
       }},
      {"ensemble_seed", "--ensemble-seed", true,
       [](const AgentOptions &O) { return O.Eval.EnsembleSeed; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.Eval.EnsembleSeed); }},
      {"team_from", "--team-from", true, [](const AgentOptions &O) { return O.TeamFrom; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.TeamFrom); }},
      {"team_member", "--team-member", true, [](const AgentOptions &O) { return O.TeamMember; },
       [](AgentOptions &O, const nlohmann::json &J) { return take(J, O.TeamMember); }},
      {"driver", "--driver", false, [](const AgentOptions &O) { return O.Driver; }, nullptr},
      {"workers", "--workers", false, [](const AgentOptions &O) { return O.Workers; }, nullptr},
      {"stall", "--stall", false, [](const AgentOptions &O) { return O.Stall; }, nullptr},
  };
  return V;
}

std::string text(const nlohmann::json &J) {
  if (J.is_string())
    return J.get<std::string>().empty() ? "none" : "'" + J.get<std::string>() + "'";
  if (J.is_array()) {
    std::string S;
    for (const auto &X : J) // weights as given: "3,0.5", not "3.0,0.5"
      S += (S.empty() ? "" : ",") + (X.is_number_float() ? general(X.get<double>()) : X.dump());
    return S;
  }
  return J.dump();
}

std::string canonical(const std::string &Dir) {
  llvm::SmallString<256> Real;
  if (Dir.empty() || llvm::sys::fs::real_path(Dir, Real))
    return Dir;
  return Real.str().str();
}

bool same(const RunOption &R, const nlohmann::json &A, const nlohmann::json &B) {
  if (std::string(R.Key) == "team_from" && A.is_string() && B.is_string())
    return canonical(A.get<std::string>()) == canonical(B.get<std::string>());
  return A == B;
}

} // namespace

nlohmann::json runOptionsJson(const AgentOptions &O) {
  nlohmann::json J = nlohmann::json::object();
  for (const RunOption &R : runOptions())
    J[R.Key] = R.Get(O);
  return J;
}

llvm::Expected<std::vector<std::string>>
resumeOptions(const nlohmann::json &Recorded, const std::string &RunJson, AgentOptions &O) {
  std::string Differ;
  std::vector<std::string> Notes;
  for (const RunOption &R : runOptions()) {
    // A run.json written before an option was recorded says nothing about it.
    if (!Recorded.is_object() || !Recorded.contains(R.Key))
      continue;
    const nlohmann::json &Was = Recorded[R.Key];
    std::string Name = std::string(R.Flag).substr(2);
    nlohmann::json Now = R.Get(O);
    if (R.Fixed && !O.Given.count(Name)) {
      if (!R.Set(O, Was))
        return makeError("'" + RunJson + "': options." + R.Key + " is malformed (" +
                         Was.dump().substr(0, 80) + ")");
      continue;
    }
    if (same(R, Was, Now))
      continue;
    if (R.Fixed)
      Differ += (Differ.empty() ? "" : ", ") + std::string(R.Flag) + " " + text(Now) +
                " (the run's: " + text(Was) + ")";
    else
      Notes.push_back("resumed with " + std::string(R.Flag) + " " + text(Now) +
                      " (the run started with " + text(Was) + ")");
  }
  if (!Differ.empty())
    return makeError("'" + RunJson +
                     "': --resume with options the run was not started with: " + Differ +
                     "; they decide the run's verdicts and stay fixed for the run: leave them out "
                     "to keep the run's, or start another --run-dir");
  return Notes;
}

} // namespace asmevo::search
