// GatedEval (search/GatedEval.h): one candidate through rebuild, the strict differential check
// and timing, each stage's outcome recorded.
#include "search/GatedEval.h"

#include "asm/Rebuild.h"
#include "check/CaptureReplay.h"
#include "check/DiffCheck.h"
#include "support/FileIO.h"
#include "support/Format.h"
#include "support/Report.h"
#include "timing/TimeRun.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cctype>

namespace asmevo::search {

std::string failureSignature(Outcome R, const std::string &Message) {
  return std::string(outcomeName(R)) + ": " + generalisedMessage(Message);
}

std::string generalisedMessage(const std::string &Message) {
  std::string S;
  bool InQuote = false, InNum = false;
  for (char C : Message) {
    if (S.size() > 120)
      break;
    if (C == '\n')
      break;
    if (C == '\'') {
      if (!InQuote)
        S += "'#'";
      InQuote = !InQuote;
      continue;
    }
    if (InQuote)
      continue;
    bool Digit = std::isdigit(static_cast<unsigned char>(C)) != 0;
    if (Digit ||
        (InNum && (C == '.' || C == 'x' || std::isxdigit(static_cast<unsigned char>(C))))) {
      if (!InNum)
        S += '#';
      InNum = true;
      continue;
    }
    InNum = false;
    S += C;
  }
  return S;
}

size_t timingLaunches(const EvalOptions &O) { return O.Captures.empty() ? 1 : O.Captures.size(); }

double timingWeight(const EvalOptions &O, size_t I) {
  return I < O.CaptureWeights.size() ? O.CaptureWeights[I] : 1.0;
}

std::string timingBasis(const EvalOptions &O) {
  if (O.Captures.size() <= 1)
    return "the captured dispatch";
  if (O.CaptureWeights.empty())
    return "the sum of the times on the captured dispatches";
  std::string W;
  for (double X : O.CaptureWeights)
    W += (W.empty() ? "" : ", ") + general(X);
  return "the weighted sum (weights " + W + ") of the times on the captured dispatches";
}

timing::TimeOptions timeOptions(const EvalOptions &O, const std::string &K1, size_t Capture) {
  timing::TimeOptions T;
  T.K0 = O.K0;
  T.K1 = K1;
  if (O.Captures.empty())
    T.Spec = O.TimeSpec.empty() ? O.Spec : O.TimeSpec;
  else
    T.Capture = O.Captures.at(Capture);
  T.Kernel = O.Kernel;
  T.Backend = O.Backend;
  T.Seed = O.Seeds.empty() ? 1 : O.Seeds.front();
  T.Threads = O.Threads;
  T.TimeoutSeconds = O.TimeoutSeconds;
  T.MaxSimulatedGroups = O.MaxSimulatedGroups;
  T.Ensemble = O.Ensemble;
  T.EnsembleSeed = O.EnsembleSeed;
  if (!K1.empty())
    T.K0Reference = !O.Captures.empty() && O.K0Reference.is_array()
                        ? O.K0Reference.size() > Capture ? O.K0Reference[Capture] : nlohmann::json()
                        : O.K0Reference;
  T.Warmup = O.Warmup;
  T.Reps = O.Reps;
  T.Rotate = O.Rotate;
  return T;
}

nlohmann::json evalOptionsJson(const EvalOptions &O) {
  return {{"format", "asmevo-worker"},
          {"format_version", 1},
          {"k0", O.K0},
          {"spec", O.Spec},
          {"kernel", O.Kernel},
          {"captures", O.Captures},
          {"capture_weights", O.CaptureWeights},
          {"types", O.Types},
          {"time_spec", O.TimeSpec},
          {"backend", O.Backend},
          {"seeds", O.Seeds},
          {"schedules", O.Schedules},
          {"edge_shapes", O.EdgeShapes},
          {"threads", O.Threads},
          {"timeout_seconds", O.TimeoutSeconds},
          {"max_simulated_groups", O.MaxSimulatedGroups},
          {"ensemble", O.Ensemble},
          {"ensemble_seed", O.EnsembleSeed},
          {"k0_reference", O.K0Reference},
          {"warmup", O.Warmup},
          {"reps", O.Reps},
          {"rotate", O.Rotate},
          {"k0_nop_states", O.K0NopStates}};
}

EvalOptions parseEvalOptions(const nlohmann::json &J) {
  if (J.value("format", "") != "asmevo-worker" || J.value("format_version", 0) != 1)
    throw nlohmann::json::other_error::create(501, "not format asmevo-worker v1", &J);
  EvalOptions O;
  O.K0 = J.at("k0").get<std::string>();
  O.Spec = J.at("spec").get<std::string>();
  O.Kernel = J.at("kernel").get<std::string>();
  // Written since captures in the loop: an older controller's workers have none.
  O.Captures = J.value("captures", std::vector<std::string>());
  O.CaptureWeights = J.value("capture_weights", std::vector<double>());
  O.Types = J.value("types", std::string());
  O.TimeSpec = J.value("time_spec", std::string());
  O.Backend = J.at("backend").get<std::string>();
  O.Seeds = J.at("seeds").get<std::vector<uint64_t>>();
  O.Schedules = J.at("schedules").get<unsigned>();
  O.EdgeShapes = J.value("edge_shapes", true);
  O.Threads = J.at("threads").get<unsigned>();
  O.TimeoutSeconds = J.at("timeout_seconds").get<double>();
  O.MaxSimulatedGroups = J.at("max_simulated_groups").get<uint64_t>();
  // Written since ensembles: an older controller's workers model one parameter set.
  O.Ensemble = J.value("ensemble", 1u);
  O.EnsembleSeed = J.value("ensemble_seed", uint64_t(1));
  O.K0Reference = J.value("k0_reference", nlohmann::json());
  O.Warmup = J.at("warmup").get<unsigned>();
  O.Reps = J.at("reps").get<unsigned>();
  O.Rotate = J.at("rotate").get<unsigned>();
  O.K0NopStates = J.at("k0_nop_states").get<unsigned>();
  return O;
}

nlohmann::json evalResultJson(const EvalResult &R) {
  return {{"format", "asmevo-eval"},
          {"format_version", 1},
          {"outcome", outcomeName(R.Result)},
          {"stage", R.Stage},
          {"signature", R.Signature},
          {"message", R.Message},
          {"object_sha256", R.ObjectSha256},
          {"k0_us", R.K0Us},
          {"us", R.Us},
          {"speedup", R.Speedup},
          {"cv", R.Cv},
          {"speedups", R.Speedups},
          {"kind", R.Kind},
          {"backend", R.Backend},
          {"rebuild", R.Rebuild},
          {"diffcheck", R.DiffCheck},
          {"time", R.Time},
          {"infrastructure", R.Infrastructure}};
}

EvalResult parseEvalResult(const nlohmann::json &J) {
  if (J.value("format", "") != "asmevo-eval" || J.value("format_version", 0) != 1)
    throw nlohmann::json::other_error::create(501, "not format asmevo-eval v1", &J);
  EvalResult R;
  std::string Name = J.at("outcome").get<std::string>();
  auto O = parseOutcome(Name);
  if (!O)
    throw nlohmann::json::other_error::create(501, "unknown outcome '" + Name + "'", &J);
  R.Result = *O;
  R.Stage = J.at("stage").get<std::string>();
  R.Signature = J.at("signature").get<std::string>();
  R.Message = J.at("message").get<std::string>();
  R.ObjectSha256 = J.at("object_sha256").get<std::string>();
  R.K0Us = J.at("k0_us").get<double>();
  R.Us = J.at("us").get<double>();
  R.Speedup = J.at("speedup").get<double>();
  R.Cv = J.at("cv").get<double>();
  if (J.contains("speedups"))
    R.Speedups = J.at("speedups").get<std::vector<double>>();
  R.Kind = J.at("kind").get<std::string>();
  R.Backend = J.at("backend").get<std::string>();
  R.Rebuild = J.at("rebuild");
  R.DiffCheck = J.at("diffcheck");
  R.Time = J.at("time");
  R.Infrastructure = J.at("infrastructure").get<bool>();
  return R;
}

unsigned nopWaitStates(const std::string &Text) {
  unsigned N = 0;
  llvm::StringRef T(Text);
  while (!T.empty()) {
    auto [Line, Rest] = T.split('\n');
    T = Rest;
    llvm::StringRef L = Line.split(';').first.trim();
    if (!L.consume_front("s_nop"))
      continue;
    unsigned V = 0;
    if (!L.trim().getAsInteger(0, V))
      N += V + 1;
  }
  return N;
}

// The strict differential check of candidate K1 against K0 on Spec's launch, for the gate.
static check::DiffOptions diffOptions(const EvalOptions &O, const std::string &K1,
                                      const std::string &Spec, std::vector<uint64_t> Seeds,
                                      unsigned Schedules) {
  check::DiffOptions D;
  D.K0 = O.K0;
  D.K1 = K1;
  D.Spec = Spec;
  D.Kernel = O.Kernel;
  D.Seeds = std::move(Seeds);
  D.Backend = O.Backend;
  D.Threads = O.Threads;
  D.Strict = true;
  D.Schedules = Schedules;
  D.EdgeShapes = O.EdgeShapes;
  D.TimeoutSeconds = O.TimeoutSeconds;
  D.K0Cache = O.K0Runs;
  return D;
}

check::DiffResult checkK0Itself(const EvalOptions &O) {
  return check::diffCheck(diffOptions(O, O.K0, O.Spec, O.Seeds, O.Schedules));
}

EvalResult gatedEval(const std::string &Text, const std::string &Dir, const CodeObject &K0,
                     const EvalOptions &O) {
  EvalResult R;
  std::string AsmPath = Dir + "/cand.s", ObjPath = Dir + "/cand.hsaco";
  auto Fail = [&](Outcome Res, std::string Stage, std::string Msg, bool Infra = false) {
    R.Result = Res;
    R.Stage = std::move(Stage);
    R.Message = std::move(Msg);
    R.Signature = failureSignature(Res, R.Message);
    R.Infrastructure = Infra;
    return R;
  };
  if (llvm::Error E = writeFileAtomic(AsmPath, Text)) {
    ErrorOutcome EO = errorOutcome(std::move(E));
    return Fail(Outcome::InputError, "io", EO.Message, true);
  }
  // 0. The hazard padding K0 has (GatedEval.h: K0NopStates).
  if (unsigned N = nopWaitStates(Text); N < O.K0NopStates)
    return Fail(Outcome::Unsafe, "rebuild",
                "the candidate has " + std::to_string(N) + " s_nop wait states, K0 " +
                    std::to_string(O.K0NopStates) +
                    ": removing hazard padding cannot be verified on the emulator");
  // 1-2. Assembles; statically consistent with K0's ABI.
  auto RB = rebuildFromAssembly(Text, AsmPath, &K0);
  if (!RB) {
    ErrorOutcome EO = errorOutcome(std::move(RB.takeError()));
    R.Rebuild = {{"outcome", "asm_invalid"}, {"message", EO.Message}};
    return Fail(Outcome::AsmInvalid, "rebuild", EO.Message);
  }
  if (!RB->Violations.empty()) {
    nlohmann::json V = nlohmann::json::array();
    for (const auto &X : RB->Violations)
      V.push_back(X.what());
    R.Rebuild = {{"outcome", "abi_invalid"}, {"violations", V}};
    return Fail(Outcome::AbiInvalid, "rebuild", RB->Violations.front().what());
  }
  nlohmann::json Changes = nlohmann::json::array();
  for (const auto &C : RB->Changes)
    Changes.push_back({{"kernel", C.Kernel}, {"field", C.Field}, {"old", C.Old}, {"new", C.New}});
  R.Rebuild = {{"outcome", "ok"}, {"resource_changes", Changes}, {"bytes", RB->Object.size()}};
  R.ObjectSha256 = sha256Hex(RB->Object);
  if (llvm::Error E = writeFileAtomic(ObjPath, RB->Object)) {
    ErrorOutcome EO = errorOutcome(std::move(E));
    return Fail(Outcome::InputError, "io", EO.Message, true);
  }
  // 3. Functional equivalence on every seed, strict; and on every captured dispatch.
  auto CheckFailed = [&](const check::DiffResult &CR, const std::string &Where = "") {
    // K0's own failure, an input the spec cannot place or a bundle K0 does not reproduce is the
    // run's problem, not the candidate's.
    bool Infra = CR.Failed == check::Blame::K0 || CR.Failed == check::Blame::Inputs;
    return Fail(CR.Result, "diffcheck", Where + CR.Message, Infra);
  };
  nlohmann::json Checked = nlohmann::json::array(); // the captures' verdicts, in order
  if (!O.Spec.empty()) {
    check::DiffResult DR = check::diffCheck(diffOptions(O, ObjPath, O.Spec, O.Seeds, O.Schedules));
    DR.Rep.Tool = "kernel-diffcheck";
    R.DiffCheck = DR.Rep.json();
    R.Backend = DR.Rep.Backend;
    R.Message = DR.Message;
    if (DR.Result != Outcome::Ok)
      return CheckFailed(DR);
  }
  for (const std::string &Bundle : O.Captures) {
    check::ReplayOptions C;
    C.K0 = O.K0;
    C.K1 = ObjPath;
    C.Bundle = Bundle;
    C.Backend = O.Backend;
    C.Types = O.Types;
    C.Threads = O.Threads;
    C.Strict = true;
    C.TimeoutSeconds = O.TimeoutSeconds;
    check::DiffResult CR = check::replayCheck(C);
    CR.Rep.Tool = "kernel-diffcheck";
    Checked.push_back(
        {{"capture", Bundle}, {"outcome", outcomeName(CR.Result)}, {"message", CR.Message}});
    if (R.DiffCheck.is_null() || CR.Result != Outcome::Ok) {
      R.DiffCheck = CR.Rep.json(); // the spec's report, else the first capture's or the failing one
      R.Backend = CR.Rep.Backend;
    }
    if (R.Message.empty() || CR.Result != Outcome::Ok)
      R.Message = CR.Message;
    if (CR.Result != Outcome::Ok) {
      R.DiffCheck["body"]["captures"] = Checked;
      return CheckFailed(CR);
    }
  }
  if (!Checked.empty()) {
    R.DiffCheck["body"]["captures"] = Checked;
    if (!O.Spec.empty() || Checked.size() > 1)
      R.Message += "; " + std::to_string(Checked.size()) + " captured dispatch" +
                   (Checked.size() > 1 ? "es" : "") + " equal";
  }
  // 4. Time, against K0 on the same launch (each capture; their times summed).
  nlohmann::json Launches = nlohmann::json::array();
  std::vector<double> K0Member, Member; // per parameter set, summed over the launches
  for (size_t I = 0; I < timingLaunches(O); ++I) {
    timing::TimeResult TR = timing::timeKernels(timeOptions(O, ObjPath, I));
    TR.Rep.Tool = "kernel-time";
    if (I == 0 || TR.Result != Outcome::Ok)
      R.Time = TR.Rep.json();
    if (TR.Result != Outcome::Ok)
      return Fail(TR.Result, "time", TR.Message, TR.Result == Outcome::InputError);
    if (TR.Kernels.size() != 2)
      return Fail(Outcome::InputError, "time",
                  "kernel-time gave " + std::to_string(TR.Kernels.size()) +
                      " kernels' times for K0 and the candidate",
                  true);
    const timing::KernelTime &T0 = TR.Kernels[0], &T1 = TR.Kernels[1];
    R.Kind = TR.Kind;
    R.Backend = TR.Backend;
    const double W = timingWeight(O, I);
    R.K0Us += W * T0.Us;
    R.Us += W * T1.Us;
    R.Cv = std::max({R.Cv, T0.Cv, T1.Cv});
    double K0Us = T0.Us, Us = T1.Us, Ratio = TR.Ratio;
    if (!O.Captures.empty())
      Launches.push_back({{"capture", O.Captures[I]},
                          {"weight", W},
                          {"k0_us", K0Us},
                          {"us", Us},
                          {"speedup", Ratio > 0 ? 1.0 / Ratio : 0.0}});
    if (timingLaunches(O) == 1) {
      R.Speedup = Ratio > 0 ? 1.0 / Ratio : 0;
      R.Speedups = TR.SpeedupPerMember; // modeled: one per parameter set, member 0 the nominal
      continue;
    }
    // Several launches: each parameter set's times summed, then the ratio.
    auto PerMember = [](const timing::KernelTime &K) {
      return K.UsPerMember.empty() ? std::vector<double>{K.Us} : K.UsPerMember;
    };
    std::vector<double> A = PerMember(T0), B = PerMember(T1);
    K0Member.resize(std::max(K0Member.size(), A.size()));
    Member.resize(std::max(Member.size(), B.size()));
    for (size_t M = 0; M < A.size(); ++M)
      K0Member[M] += W * A[M];
    for (size_t M = 0; M < B.size(); ++M)
      Member[M] += W * B[M];
  }
  if (timingLaunches(O) > 1) {
    R.Speedup = R.Us > 0 ? R.K0Us / R.Us : 0;
    if (R.Kind == "modeled" && K0Member.size() == Member.size())
      for (size_t M = 0; M < Member.size(); ++M)
        R.Speedups.push_back(Member[M] > 0 ? K0Member[M] / Member[M] : 0);
  }
  if (!Launches.empty())
    R.Time["body"]["timing_launches"] = {{"basis", timingBasis(O) + ", K0's and the candidate's"},
                                         {"k0_us", R.K0Us},
                                         {"us", R.Us},
                                         {"speedup", R.Speedup},
                                         {"launches", Launches}};
  if (!R.Speedups.empty())
    R.Speedups[0] = R.Speedup; // the same number, not one rounding apart
  // 5. The timing launch checked too, once (the first seed), where the candidate could be
  // committed: faster than K0 under every parameter set (the gate commits only what beats the
  // best, itself K0 or faster than K0, under every set: Gate.h). Any other stays verified on the
  // correctness launches only; whatever is committed later from it is checked then.
  bool Faster = R.Speedup > 1;
  for (double X : R.Speedups)
    Faster &= X > 1;
  if (!O.TimeSpec.empty() && Faster) {
    check::DiffOptions D =
        diffOptions(O, ObjPath, O.TimeSpec, {O.Seeds.empty() ? 1 : O.Seeds.front()}, 1);
    D.EdgeShapes = false; // the correctness launches have them; this is the timing launch
    check::DiffResult TL = check::diffCheck(D);
    TL.Rep.Tool = "kernel-diffcheck";
    if (R.DiffCheck.is_object() && R.DiffCheck.contains("body"))
      R.DiffCheck["body"]["timing_launch"] = {
          {"spec", O.TimeSpec}, {"outcome", outcomeName(TL.Result)}, {"message", TL.Message}};
    if (TL.Result != Outcome::Ok)
      return CheckFailed(TL, "on the timing launch ('" + O.TimeSpec + "', seed " +
                                 std::to_string(D.Seeds.front()) + "): ");
  }
  return R;
}

} // namespace asmevo::search
