// The search under a fixed budget, per corpus kernel: asmevo-agent's controller (libcommon/search)
// with an offline driver on the emulator, one row per kernel: the modeled speedup of K* over
// K0, candidates, commits, candidates per hour, and the share of candidates each gate stage
// rejected; then the geometric mean of the speedups. The kernels: every gfx942 Triton object of
// test/corpus/triton with a spec in test/specs, the clang corpus objects with a spec in
// test/specs/clang when the corpus is built (build/corpus/clang), and a de-optimized Triton
// vector add (an s_waitcnt vmcnt(0) after every load: known slack); with --aiter-dir, the AITer
// code objects of bench/agent_bench_aiter.tsv (timed at their published launches where the
// issue-38 table has one). Every K* is verified by the
// gates it passed (kernel-diffcheck strict on seeds 1,2,3); speedups are modeled, not measured.
// The timing launch (issue 39): where test/specs/timing/<name>.json gives a representative launch
// (a grid of several workgroups per CU of the modeled GPU), the search times there
// (asmevo-agent --time-spec; the spec's small launch stays the correctness one); --toy times on
// the small spec's launch instead, as before. Each row names its timing launch's workgroups.
//   agent_bench [--source-dir DIR] [--corpus-dir DIR] [--aiter-dir DIR] [--budget SECONDS]
//               [--driver NAME]
//               [--workers N] [--threads N] [--only SUBSTRING[,...]] [--toy] [--max-candidates N]
//               [--no-k0-reuse]
// --threads: host threads per emulated launch and per simulated ensemble, per worker (default 1).
// --no-k0-reuse: K0's differential-check runs with every candidate, as before issue 39.
// timed_s: the median host seconds of the candidates that reached the model (outcome slower, or
// committed), from the run's journal; cands/h counts the run's setup (K0's timing and profile).
#include "bench_support.h"

#include "asm/Rebuild.h"
#include "asm/Recover.h"
#include "check/DiffCheck.h"
#include "codeobj/Input.h"
#include "launch/LaunchSpec.h"
#include "search/Agent.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

using namespace asmevo;
using namespace asmevo::bench;

namespace {

struct Case {
  std::string Name, Object, PartialSpec, TimingSpec;
  std::string TimingKernel; // read the timing spec for this kernel ("" = the spec's own)
};

// The AITer rows of bench/agent_bench_aiter.tsv whose object is under Hsa (a missing object is
// skipped with a line on stderr); an error text for a malformed file.
std::string aiterCases(const std::string &Src, const std::string &Hsa, std::vector<Case> &Out) {
  std::string Path = Src + "/bench/agent_bench_aiter.tsv";
  auto F = readFile(Path);
  if (!F)
    return llvm::toString(F.takeError());
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  (*F)->getBuffer().split(Lines, '\n', -1, false);
  unsigned LineNo = 0;
  for (llvm::StringRef L : Lines) {
    ++LineNo;
    if (L.starts_with("#") || L.trim().empty())
      continue;
    llvm::SmallVector<llvm::StringRef, 4> F4;
    L.split(F4, '\t');
    if (F4.size() != 4)
      return Path + ":" + std::to_string(LineNo) + ": expected 4 tab-separated fields, got " +
             std::to_string(F4.size());
    Case C{"aiter/" + F4[0].str(), Hsa + "/" + F4[1].str(), Src + "/" + F4[2].str(),
           F4[3] == "-" ? "" : Src + "/" + F4[3].str(), ""};
    if (!llvm::sys::fs::exists(C.Object)) {
      std::fprintf(stderr, "agent_bench: %s: no %s, skipped\n", C.Name.c_str(), C.Object.c_str());
      continue;
    }
    auto S = launch::readLaunchSpec(C.PartialSpec);
    if (!S)
      return llvm::toString(S.takeError());
    C.TimingKernel = S->Kernel;
    Out.push_back(C);
  }
  return "";
}

// The grid's workgroups of a spec file (0 when it cannot be read).
uint64_t specWorkgroups(const std::string &Path) {
  auto S = launch::readLaunchSpec(Path);
  if (!S)
    return llvm::consumeError(S.takeError()), 0;
  return uint64_t(S->Grid[0]) * S->Grid[1] * S->Grid[2];
}

std::string deoptimize(const std::string &Text) {
  std::string Out;
  size_t P = 0;
  while (P < Text.size()) {
    size_t E = Text.find('\n', P);
    if (E == std::string::npos)
      E = Text.size();
    std::string L = Text.substr(P, E - P);
    Out += L + "\n";
    if (L.rfind("\tbuffer_load_dword", 0) == 0)
      Out += "\ts_waitcnt vmcnt(0)\n";
    P = E + 1;
  }
  return Out;
}

// The median host seconds of a run's timed candidates (outcome slower, or committed; not the
// root), from its journal: what one candidate that reaches the model costs. 0 when none.
double medianTimedSeconds(const std::string &RunDir) {
  auto B = readFile(RunDir + "/journal.jsonl");
  if (!B) {
    llvm::consumeError(B.takeError());
    return 0;
  }
  std::vector<double> S;
  llvm::StringRef Text = (*B)->getBuffer();
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    nlohmann::json J = nlohmann::json::parse(Line.str(), nullptr, false);
    if (!J.is_object() || J.value("event", "") != "node" || J.value("id", "") == "n000000")
      continue;
    if (J.value("outcome", "") != "slower" && !J.value("committed", false))
      continue;
    if (J.contains("node") && J["node"].is_object())
      S.push_back(J["node"].value("seconds", 0.0));
  }
  if (S.empty())
    return 0;
  std::sort(S.begin(), S.end());
  return S.size() % 2 ? S[S.size() / 2] : (S[S.size() / 2 - 1] + S[S.size() / 2]) / 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string Src = ASMEVO_SOURCE_DIR, Corpus, Aiter, Driver = "rules", Only;
  double Budget = 30;
  unsigned Workers = 1, Threads = 1;
  bool Toy = false, ReuseK0 = true;
  uint64_t MaxCandidates = 0;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "agent_bench: %s needs a value\n", A.c_str());
        std::exit(2);
      }
      return argv[++I];
    };
    if (A == "--source-dir")
      Src = Next();
    else if (A == "--corpus-dir")
      Corpus = Next();
    else if (A == "--aiter-dir")
      Aiter = Next();
    else if (A == "--budget")
      Budget = std::stod(Next());
    else if (A == "--driver")
      Driver = Next();
    else if (A == "--workers")
      Workers = unsigned(std::stoul(Next()));
    else if (A == "--threads")
      Threads = unsigned(std::stoul(Next()));
    else if (A == "--only")
      Only = Next();
    else if (A == "--toy")
      Toy = true;
    else if (A == "--no-k0-reuse")
      ReuseK0 = false;
    else if (A == "--max-candidates")
      MaxCandidates = std::stoull(Next());
    else {
      std::fprintf(stderr,
                   "usage: agent_bench [--source-dir DIR] [--corpus-dir DIR] [--aiter-dir DIR] "
                   "[--budget SECONDS] "
                   "[--driver NAME] [--workers N] [--threads N] [--only SUBSTRING[,...]] [--toy] "
                   "[--max-candidates N] [--no-k0-reuse]\n");
      return 2;
    }
  }
  auto Tmp = TempDir::create("agent-bench");
  if (!Tmp) {
    std::fprintf(stderr, "agent_bench: %s\n", llvm::toString(Tmp.takeError()).c_str());
    return 1;
  }
  std::vector<Case> Cases;
  std::error_code EC;
  std::vector<std::string> Triton;
  for (llvm::sys::fs::directory_iterator It(Src + "/test/corpus/triton/gfx942", EC), E;
       It != E && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".hsaco"))
      Triton.push_back(It->path());
  std::sort(Triton.begin(), Triton.end());
  for (const std::string &P : Triton) {
    std::string N = llvm::sys::path::stem(P).str();
    std::string S = Src + "/test/specs/" + N + ".json";
    std::string T = Src + "/test/specs/timing/" + N + ".json";
    if (llvm::sys::fs::exists(S))
      Cases.push_back({"triton/" + N, P, S, llvm::sys::fs::exists(T) ? T : ""});
  }
  if (!Corpus.empty())
    for (llvm::sys::fs::directory_iterator It(Src + "/test/specs/clang", EC), E; It != E && !EC;
         It.increment(EC)) {
      std::string N = llvm::sys::path::stem(It->path()).str();
      std::string O = Corpus + "/gfx942/" + N + ".hsaco";
      if (llvm::sys::fs::exists(O))
        Cases.push_back({"clang/" + N, O, It->path()});
    }
  if (!Aiter.empty()) {
    std::string E = aiterCases(Src, Aiter, Cases);
    if (!E.empty()) {
      std::fprintf(stderr, "agent_bench: %s\n", E.c_str());
      return 1;
    }
  }
  // The de-optimized vector add.
  {
    std::string V = Src + "/test/corpus/triton/gfx942/vector_add_fp32.hsaco";
    auto K = openCodeObject(V);
    auto Rec = K ? recoverAssembly((*K)->C, V, sha256Hex((*K)->C.Bytes), "k.s")
                 : llvm::Expected<RecoverResult>(K.takeError());
    if (Rec) {
      auto RB = rebuildFromAssembly(deoptimize(Rec->Asm), "deopt.s", nullptr);
      if (RB && !writeFileAtomic(Tmp->file("deopt_vector_add.hsaco"), RB->Object))
        Cases.push_back({"deopt/vector_add_fp32", Tmp->file("deopt_vector_add.hsaco"),
                         Src + "/test/specs/vector_add_fp32.json",
                         Src + "/test/specs/timing/vector_add_fp32.json"});
      else if (!RB)
        llvm::consumeError(RB.takeError());
    } else {
      llvm::consumeError(Rec.takeError());
    }
  }
  std::printf("asmevo-agent bench: driver %s, budget %.0f s per kernel, %u worker(s) of %u "
              "thread(s); speedups modeled, not measured (emu); timing launch: %s; K0's check "
              "runs %s\n",
              Driver.c_str(), Budget, Workers, std::max(1u, Threads),
              Toy ? "the small spec's (--toy)"
                  : "test/specs/timing/<name>.json where there is one (else the spec's)",
              ReuseK0 ? "once per run" : "with every candidate (--no-k0-reuse)");
  std::printf("%-36s %6s %8s %17s %6s %6s %9s %8s %7s %7s %7s %7s %7s %s\n", "kernel", "groups",
              "speedup", "ensemble [min,max]", "cands", "commit", "cands/h", "timed_s", "asm%",
              "abi%", "diff%", "time%", "slow%", "stopped by");
  double LogSum = 0, LogMin = 0, LogMax = 0;
  unsigned N = 0, Dir = 0;
  for (const Case &C : Cases) {
    if (!Only.empty()) {
      llvm::SmallVector<llvm::StringRef, 4> Subs;
      llvm::StringRef(Only).split(Subs, ',', -1, false);
      if (llvm::none_of(Subs,
                        [&](llvm::StringRef S) { return llvm::StringRef(C.Name).contains(S); }))
        continue;
    }
    std::string Full = Tmp->file("spec" + std::to_string(Dir) + ".json");
    Report IR = check::runInferOnly(C.Object, C.PartialSpec, "", Full, check::InferOptions{});
    if (IR.Result != Outcome::Ok) {
      std::printf("%-36s spec: %s\n", C.Name.c_str(), IR.Message.c_str());
      continue;
    }
    search::AgentOptions O;
    O.K0 = C.Object;
    O.Spec = Full;
    std::string Timed = Full;
    if (!Toy && !C.TimingSpec.empty()) {
      std::string TFull = Tmp->file("timing" + std::to_string(Dir) + ".json");
      Report TR =
          check::runInferOnly(C.Object, C.TimingSpec, C.TimingKernel, TFull, check::InferOptions{});
      if (TR.Result != Outcome::Ok) {
        std::printf("%-36s timing spec: %s\n", C.Name.c_str(), TR.Message.c_str());
        continue;
      }
      O.Eval.TimeSpec = Timed = TFull;
    }
    O.MaxCandidates = MaxCandidates;
    O.ReuseK0Runs = ReuseK0;
    O.Tool = "asmevo-agent"; // the search as the tool runs it (its summary.json names the tool)
    O.RunDir = Tmp->file("run" + std::to_string(Dir++));
    O.Driver = Driver;
    O.BudgetSeconds = Budget;
    O.Workers = Workers;
    O.Eval.Threads = std::max(1u, Threads);
    Report R = search::runAgent(O);
    if (R.Result != Outcome::Ok) {
      std::printf("%-36s %s: %s\n", C.Name.c_str(), outcomeName(R.Result), R.Message.c_str());
      continue;
    }
    const nlohmann::json &B = R.Body;
    double Cands = std::max(1.0, B["candidates"].get<double>());
    std::map<std::string, double> Stage;
    for (auto It = B["outcomes"].begin(); It != B["outcomes"].end(); ++It)
      Stage[It.key()] = It->get<double>();
    auto Pct = [&](std::initializer_list<const char *> Keys) {
      double S = 0;
      for (const char *K : Keys)
        S += Stage.count(K) ? Stage[K] : 0;
      return 100.0 * S / Cands;
    };
    double S = B["speedup"].get<double>();
    // K*'s speedup under the ensemble's parameter sets (K0 itself, when nothing was committed:
    // 1 under every set).
    double Lo = S, Hi = S;
    if (const nlohmann::json &I = B["speedup_interval"]; I.is_object()) {
      Lo = I["min"].get<double>();
      Hi = I["max"].get<double>();
    }
    char Interval[40];
    std::snprintf(Interval, sizeof Interval, "[%.4f,%.4f]", Lo, Hi);
    std::printf("%-36s %6llu %7.4fx %17s %6.0f %6llu %9.0f %8.2f %6.1f%% %6.1f%% %6.1f%% %6.1f%% "
                "%6.1f%% %s\n",
                C.Name.c_str(), static_cast<unsigned long long>(specWorkgroups(Timed)), S, Interval,
                Cands, static_cast<unsigned long long>(B["commits"].get<uint64_t>()),
                B["candidates_per_hour"].get<double>(), medianTimedSeconds(O.RunDir),
                Pct({"asm_invalid"}), Pct({"abi_invalid"}),
                Pct({"divergent", "unsafe", "runtime_error"}), Pct({"input_error"}),
                Pct({"slower"}), B["stopped_by"].get<std::string>().substr(0, 40).c_str());
    std::fflush(stdout);
    LogSum += std::log(S);
    LogMin += std::log(Lo);
    LogMax += std::log(Hi);
    ++N;
  }
  if (N)
    std::printf("geo-mean modeled speedup over %u kernels: %.4fx (of the ensemble's minima "
                "%.4fx, of its maxima %.4fx)\n",
                N, std::exp(LogSum / N), std::exp(LogMin / N), std::exp(LogMax / N));
  return 0;
}
