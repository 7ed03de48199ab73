// The cost of the model's ensemble (kernel-time --ensemble N, timing/Ensemble.h): per corpus
// kernel (every gfx942 Triton object of test/corpus/triton with a spec in test/specs), the host
// seconds of one modeled pair (K0 against a K1, kernel-time's library call, one parameter set),
// of the same pair under N parameter sets (each kernel emulated once, its traces simulated N
// times), and of one candidate of asmevo-agent's gate under N sets (K1 alone: K0's figures come
// from the run's one timing of K0, TimeOptions::K0Reference), for N = 8, 16, 32; then their
// ratios to the single pair. K1 is K0 itself (the cost does not depend on what K1 is), and its
// speedup under every set is checked to be exactly 1 (the sets are paired, and the reused K0
// figures are the ones a full pair gives). One host thread; median of --repeat runs.
//   ensemble_bench [--source-dir DIR] [--repeat N] [--sizes 8,16,32] [--only SUBSTRING]
// With --pair K0 K1 SPEC (a complete spec), it models that pair under --ensemble N sets (default
// timing::kDefaultEnsemble) and prints the speedup's interval and the commit gate's verdict on
// K1 as a first candidate over K0 (search/Gate.h, the agent's default gate parameters):
//   ensemble_bench --pair K0.hsaco K1.hsaco FULL.json [--ensemble N] [--ensemble-seed S]
#include "bench_support.h"

#include "check/DiffCheck.h"
#include "search/Gate.h"
#include "support/FileIO.h"
#include "timing/Ensemble.h"
#include "timing/TimeRun.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

using namespace asmevo;
using namespace asmevo::bench;

namespace {

struct Case {
  std::string Name, Object, Spec;
};

// Host seconds of one kernel-time run (median of Repeat), and whether every per-set speedup was
// exactly 1.
struct Timed {
  double Seconds = 0;
  bool Paired = true, Ok = true;
  std::string Error;
};

Timed timeRun(const timing::TimeOptions &O, unsigned Repeat) {
  Timed T;
  std::vector<double> S;
  for (unsigned I = 0; I < Repeat; ++I) {
    auto T0 = Clock::now();
    Report R = timing::runKernelTime(O);
    S.push_back(msSince(T0) / 1000);
    if (R.Result != Outcome::Ok) {
      T.Ok = false;
      T.Error = R.Message;
      return T;
    }
    for (double X : R.Body["speedup"].value("per_member", std::vector<double>()))
      T.Paired &= X == 1.0;
    // A candidate's K0 must come from the reference, not be modeled again.
    if (!O.K0Reference.is_null())
      T.Paired &= R.Body["kernels"][0].value("reused", false);
  }
  T.Seconds = median(S);
  return T;
}

// --pair: the interval and the gate's verdict of one modeled pair.
int pairMode(const std::string &K0, const std::string &K1, const std::string &Spec, unsigned N,
             uint64_t Seed) {
  timing::TimeOptions O;
  O.K0 = K0;
  O.K1 = K1;
  O.Spec = Spec;
  O.Ensemble = N;
  O.EnsembleSeed = Seed;
  auto T0 = Clock::now();
  Report R = timing::runKernelTime(O);
  double Secs = msSince(T0) / 1000;
  if (R.Result != Outcome::Ok) {
    std::fprintf(stderr, "ensemble_bench: %s\n", R.Message.c_str());
    return 1;
  }
  std::vector<double> S = R.Body["speedup"].value("per_member", std::vector<double>());
  timing::Interval I = timing::summarizeEnsemble(S);
  search::GateDecision G = search::commitGateEnsemble(S, {}, 1.0, search::GateParams{});
  std::printf("K0 %s\nK1 %s\n%s\n", K0.c_str(), K1.c_str(), R.Message.c_str());
  std::printf("speedup under %u parameter sets (seed %llu): nominal %.4f, min %.4f, median %.4f, "
              "max %.4f, cv %.4f; K1 faster under %u of %u\n",
              N, static_cast<unsigned long long>(Seed), I.Value, I.Min, I.Median, I.Max, I.Cv,
              R.Body["speedup"].value("faster_members", 0u), N);
  std::printf("gate (first candidate over K0): %s\n", G.Reason.c_str());
  std::printf("benchmark: %.1f s wall-clock on this machine for the pair\n", Secs);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string Src = ASMEVO_SOURCE_DIR, Only;
  unsigned Repeat = 3;
  std::vector<unsigned> Sizes = {8, 16, 32};
  std::vector<std::string> Pair;
  unsigned PairN = timing::kDefaultEnsemble;
  uint64_t PairSeed = 1;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "ensemble_bench: %s needs a value\n", A.c_str());
        std::exit(2);
      }
      return argv[++I];
    };
    if (A == "--source-dir")
      Src = Next();
    else if (A == "--repeat")
      Repeat = unsigned(std::stoul(Next()));
    else if (A == "--only")
      Only = Next();
    else if (A == "--pair") {
      for (int K = 0; K < 3; ++K)
        Pair.push_back(Next());
    } else if (A == "--ensemble")
      PairN = unsigned(std::stoul(Next()));
    else if (A == "--ensemble-seed")
      PairSeed = std::stoull(Next());
    else if (A == "--sizes") {
      Sizes.clear();
      std::stringstream SS(Next());
      for (std::string X; std::getline(SS, X, ',');)
        Sizes.push_back(unsigned(std::stoul(X)));
    } else {
      std::fprintf(stderr, "usage: ensemble_bench [--source-dir DIR] [--repeat N] "
                           "[--sizes 8,16,32] [--only SUBSTRING] | --pair K0 K1 SPEC "
                           "[--ensemble N] [--ensemble-seed S]\n");
      return 2;
    }
  }
  if (!Pair.empty())
    return pairMode(Pair[0], Pair[1], Pair[2], PairN, PairSeed);
  auto Tmp = TempDir::create("ensemble-bench");
  if (!Tmp) {
    std::fprintf(stderr, "ensemble_bench: %s\n", llvm::toString(Tmp.takeError()).c_str());
    return 1;
  }
  std::vector<Case> Cases;
  std::error_code EC;
  std::vector<std::string> Objects;
  for (llvm::sys::fs::directory_iterator It(Src + "/test/corpus/triton/gfx942", EC), E;
       It != E && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".hsaco"))
      Objects.push_back(It->path());
  std::sort(Objects.begin(), Objects.end());
  for (const std::string &P : Objects) {
    std::string N = llvm::sys::path::stem(P).str();
    std::string S = Src + "/test/specs/" + N + ".json";
    if (llvm::sys::fs::exists(S) && (Only.empty() || N.find(Only) != std::string::npos))
      Cases.push_back({N, P, S});
  }
  std::printf("kernel-time --ensemble N: host seconds of one modeled pair (K0 against K1 = K0) "
              "under one parameter set, of the pair under N, and of one gate candidate under N "
              "(K1 alone, K0's figures reused); ratios to the single pair; 1 host thread, median "
              "of %u runs\n",
              Repeat);
  std::printf("%-28s %8s", "kernel", "pair s");
  for (unsigned N : Sizes)
    std::printf(" %12s %7s %12s %7s", ("pair N=" + std::to_string(N)).c_str(), "ratio",
                ("cand N=" + std::to_string(N)).c_str(), "ratio");
  std::printf(" %s\n", "paired");
  std::map<unsigned, double> LogPair, LogCand;
  unsigned Rows = 0;
  for (size_t I = 0; I < Cases.size(); ++I) {
    const Case &C = Cases[I];
    std::string Full = Tmp->file("spec" + std::to_string(I) + ".json");
    Report IR = check::runInferOnly(C.Object, C.Spec, "", Full, check::InferOptions{});
    if (IR.Result != Outcome::Ok) {
      std::printf("%-28s spec: %s\n", C.Name.c_str(), IR.Message.c_str());
      continue;
    }
    timing::TimeOptions O;
    O.K0 = O.K1 = C.Object;
    O.Spec = Full;
    O.Threads = 1;
    O.Ensemble = 1;
    Timed One = timeRun(O, Repeat);
    if (!One.Ok) {
      std::printf("%-28s %s\n", C.Name.c_str(), One.Error.c_str());
      continue;
    }
    std::printf("%-28s %8.3f", C.Name.c_str(), One.Seconds);
    bool Paired = true;
    for (unsigned N : Sizes) {
      O.Ensemble = N;
      O.K0Reference = nullptr;
      Timed T = timeRun(O, Repeat);
      // The candidate: K0 timed once (not counted: the agent does it once per run), then K1.
      timing::TimeOptions K0Only = O;
      K0Only.K1.clear();
      O.K0Reference = timing::modeledReference(timing::runKernelTime(K0Only));
      Timed Cand = timeRun(O, Repeat);
      Paired &= T.Paired && T.Ok && Cand.Paired && Cand.Ok && !O.K0Reference.is_null();
      std::printf(" %12.3f %6.2fx %12.3f %6.2fx", T.Seconds, T.Seconds / One.Seconds, Cand.Seconds,
                  Cand.Seconds / One.Seconds);
      LogPair[N] += std::log(T.Seconds / One.Seconds);
      LogCand[N] += std::log(Cand.Seconds / One.Seconds);
    }
    std::printf(" %s\n", Paired ? "yes" : "NO");
    std::fflush(stdout);
    ++Rows;
  }
  if (Rows) {
    std::printf("geometric mean of the ratio to the single pair over %u kernels:", Rows);
    for (unsigned N : Sizes)
      std::printf(" N=%u pair %.2fx, candidate %.2fx;", N, std::exp(LogPair[N] / Rows),
                  std::exp(LogCand[N] / Rows));
    std::printf("\n");
  }
  std::printf("benchmark: seconds are wall-clock on this machine\n");
  return 0;
}
