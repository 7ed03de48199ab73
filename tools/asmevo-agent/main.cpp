// asmevo-agent: the gated search loop over one kernel of K0: a driver proposes edits of the
// recovered assembly, each candidate is rebuilt with K0's ABI, checked against K0 (strict),
// timed against K0, and committed only through the commit gate; every step is kept in a run
// directory that survives a kill (--resume).
#include "AsmevoAgent.h"
#include "search/Agent.h"
#include "search/Driver.h"
#include "support/Cli.h"
#include "timing/Ensemble.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <cmath>

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("asmevo-agent",
        "search for a faster, verified replacement of an AMDGPU kernel (the gated loop)",
        "K0.hsaco --spec SPEC.json --run-dir DIR | K0.hsaco --capture BUNDLE [--spec "
        "SPEC.json] --run-dir DIR");
  C.addJsonOption();
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().add_options()("spec", "K0's complete launch spec (kernel-diffcheck --infer)",
                            cxxopts::value<std::string>(), "FILE")(
      "capture",
      "A dispatch recorded by dispatch-capture: every candidate must replay it as K0 does "
      "(kernel-diffcheck --capture), and the captures are the timing launch (their times "
      "summed); repeatable; with --spec, the spec's launch is checked too but not timed",
      cxxopts::value<std::vector<std::string>>(), "BUNDLE")(
      "capture-weights",
      "Weights of the captures' times in the sum, in --capture's order (e.g. how often each "
      "dispatch runs in the application; default all 1)",
      cxxopts::value<std::string>(), "W[,W...]")(
      "time-spec",
      "A complete spec of a representative launch to time candidates on instead of --spec's "
      "(e.g. a grid that fills the GPU several times); a candidate faster than K0 there must "
      "also pass the differential check on it (the first seed) before it can be committed",
      cxxopts::value<std::string>(), "FILE")(
      "types",
      "With --capture: element types of the memory pointer arguments reach, compared by Eq. 1 "
      "(kernel-diffcheck --types), for every capture",
      cxxopts::value<std::string>(), "ARG=TYPE[,...]")(
      "run-dir", "The run directory: lineage, journal, best.s/best.hsaco, summary.json",
      cxxopts::value<std::string>(),
      "DIR")("asm", "K0's recovered assembly (hsaco-recover; default: recovered here)",
             cxxopts::value<std::string>(),
             "FILE")("baseline", "K0's time (kernel-time --json on K0), checked to be K0's",
                     cxxopts::value<std::string>(),
                     "FILE")("driver", search::driverHelp(), cxxopts::value<std::string>(), "NAME")(
      "budget", "Wall-clock budget of this run in seconds (default 300)", cxxopts::value<double>(),
      "SECONDS")("max-candidates", "Stop after N candidates in the run (default: no limit)",
                 cxxopts::value<uint64_t>(), "N")(
      "workers", "Candidates evaluated in parallel (default 1)", cxxopts::value<unsigned>(),
      "N")("seeds", "Input seeds of the differential check (default 1,2,3)",
           cxxopts::value<std::string>(), "N[,N...]")(
      "no-edge-shapes", "Check candidates on the spec's launch only, not also on its edge shapes "
                        "(kernel-diffcheck --no-edge-shapes)")(
      "stall",
      "Candidates without a commit before a redirect and backtrack (default 40; "
      "twice that escalates to multi-start, four times stops)",
      cxxopts::value<unsigned>(),
      "N")("epsilon", "Commit gate: minimum improvement margin (default 0.002)",
           cxxopts::value<double>(), "X")("gate-k",
                                          "Commit gate: weight of the timing's CV (default "
                                          "0.85)",
                                          cxxopts::value<double>(), "X")(
      "s-floor", "Commit gate: minimum speedup over K0 (default 1.0)", cxxopts::value<double>(),
      "X")("max-groups", "emu: workgroups the timing model simulates (default 256)",
           cxxopts::value<uint64_t>(),
           "N")("ensemble",
                "emu: parameter sets the model times each candidate under, drawn from the "
                "parameter file's ranges; a candidate is committed only if it clears the gate "
                "under every one (default " +
                    std::to_string(timing::kDefaultEnsemble) + "; 1 to 1024)",
                cxxopts::value<unsigned>(), "N")(
      "ensemble-seed", "emu: seed of the parameter sets (default 1)", cxxopts::value<uint64_t>(),
      "S")("exec-timeout", "exec: seconds a proposer may run per proposal (default 60)",
           cxxopts::value<double>(), "SECONDS")("seed", "The stochastic driver's seed (default 1)",
                                                cxxopts::value<uint64_t>(), "N")(
      "keep-rejected", "Keep the text and object of rejected candidates too")(
      "resume", "Continue the search in --run-dir (after a stop, a crash or kill -9)");
  C.options().add_options()("worker-launch",
                            "Evaluate each candidate as a separate process started through "
                            "PREFIX (e.g. 'srun --ntasks=1 --gpus-per-task=1': one Slurm job "
                            "step per candidate)",
                            cxxopts::value<std::string>(), "PREFIX")(
      "worker", "What --worker-launch runs: evaluate the candidate in NODE_DIR of a run directory",
      cxxopts::value<std::string>(), "NODE_DIR")(
      "team-from", "Team mode: start this new run from a verified node of the run directory DIR",
      cxxopts::value<std::string>(),
      "DIR")("team-member",
             "Team mode: the member's index I: it starts from DIR's I-th verified node, "
             "best first, with the driver's seed raised by I (default 0)",
             cxxopts::value<unsigned>(),
             "I")("merge", "Merge the team members' run directories (the inputs) "
                           "into the team's --run-dir, losing no node");
  C.options().add_options()(
      "llm-url", "The endpoint's base URL (https://api.anthropic.com, http://127.0.0.1:8000)",
      cxxopts::value<std::string>(),
      "URL")("llm-model", "The model name the endpoint serves", cxxopts::value<std::string>(),
             "NAME")("llm-dialect",
                     "anthropic (Messages API; default) or openai (chat completions: vLLM, "
                     "llama-server, OpenAI)",
                     cxxopts::value<std::string>(), "NAME")(
      "llm-key-env",
      "The name of the environment variable that holds the API key, never the key (default: "
      "none sent)",
      cxxopts::value<std::string>(), "VAR")(
      "llm-cache", "Answer a request made before from DIR, and keep every new usable reply there",
      cxxopts::value<std::string>(),
      "DIR")("llm-timeout", "Seconds one request may take (default 120; at most 86400)",
             cxxopts::value<double>(),
             "SECONDS")("llm-retries",
                        "Retries of a request after a 429, a 5xx, a timeout or a cut-short reply "
                        "(default 4; at most 50)",
                        cxxopts::value<unsigned>(),
                        "N")("llm-max-requests",
                             "Requests the run may send, retries included (default " +
                                 std::to_string(llm::kDefaultMaxRequests) + "; 0: no limit)",
                             cxxopts::value<uint64_t>(), "N")(
      "llm-max-tokens",
      "Input and output tokens the run may spend (default " +
          std::to_string(llm::kDefaultMaxTokens) + "; 0: no limit)",
      cxxopts::value<uint64_t>(), "N")("llm-reply-tokens",
                                       "max_tokens of each request (default 4096; at most " +
                                           std::to_string(llm::kMaxReplyTokens) + ")",
                                       cxxopts::value<unsigned>(), "N");
  C.addLaunchOptions(/*Geometry=*/false);
  C.addDeviceOptions("emu (the emulator; times are modeled, not measured; the default) or hip "
                     "(an AMD GPU: measured)",
                     "Stop an emulated launch after SECONDS (emu; default: none)");
  C.options().parse_positional({"input"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  std::vector<std::string> In;
  if (R.count("input"))
    In = R["input"].as<std::vector<std::string>>();
  if (R.count("worker")) {
    if (int Code = onlyOptions(C, "--worker", {"worker"}); Code >= 0)
      return Code;
    if (!In.empty())
      return C.usageError("--worker takes one NODE_DIR and no code object");
    return agentWorker(C, R["worker"].as<std::string>());
  }
  if (R.count("merge")) {
    if (int Code = onlyOptions(C, "--merge", {"merge", "run-dir", "input"}); Code >= 0)
      return Code;
    if (In.empty() || !R.count("run-dir"))
      return C.usageError("--merge takes the members' run directories and the team's --run-dir");
    return agentMerge(C, R["run-dir"].as<std::string>(), In);
  }
  if (In.size() != 1)
    return C.usageError("give one code object (K0)");
  if (!R.count("spec") && !R.count("capture"))
    return C.usageError("--spec is required (or --capture)");
  if (R.count("types") && !R.count("capture"))
    return C.usageError("--types is for --capture (a spec types its arguments itself)");
  if (!R.count("run-dir"))
    return C.usageError("--run-dir is required");
  DeviceOptions Dev;
  if (int Code = C.deviceOptions(Dev); Code >= 0)
    return Code;
  LaunchOptions Launch;
  if (int Code = C.launchOptions(Launch); Code >= 0)
    return Code;
  search::AgentOptions O;
  O.K0 = In[0];
  if (R.count("spec"))
    O.Spec = R["spec"].as<std::string>();
  if (R.count("capture"))
    O.Eval.Captures = R["capture"].as<std::vector<std::string>>();
  if (R.count("types"))
    O.Eval.Types = R["types"].as<std::string>();
  if (R.count("capture-weights")) {
    llvm::SmallVector<llvm::StringRef, 8> Parts;
    llvm::StringRef(R["capture-weights"].as<std::string>()).split(Parts, ',');
    for (llvm::StringRef P : Parts) {
      double W = 0;
      if (P.trim().getAsDouble(W) || !(W > 0) || !std::isfinite(W))
        return C.usageError("--capture-weights: '" + P.str() +
                            "' is not a positive number (W[,W...], one per --capture)");
      O.Eval.CaptureWeights.push_back(W);
    }
    if (O.Eval.CaptureWeights.size() != O.Eval.Captures.size())
      return C.usageError("--capture-weights gives " +
                          std::to_string(O.Eval.CaptureWeights.size()) + " weight" +
                          (O.Eval.CaptureWeights.size() == 1 ? "" : "s") + " for " +
                          std::to_string(O.Eval.Captures.size()) + " --capture");
  }
  if (R.count("time-spec")) {
    if (!R.count("spec"))
      return C.usageError("--time-spec needs --spec (the correctness launches)");
    O.Eval.TimeSpec = R["time-spec"].as<std::string>();
  }
  O.RunDir = R["run-dir"].as<std::string>();
  O.Kernel = Launch.Kernel;
  if (R.count("asm"))
    O.Asm = R["asm"].as<std::string>();
  if (R.count("baseline"))
    O.Baseline = R["baseline"].as<std::string>();
  if (R.count("driver"))
    O.Driver = R["driver"].as<std::string>();
  if (R.count("budget")) {
    O.BudgetSeconds = R["budget"].as<double>();
    if (!(O.BudgetSeconds > 0))
      return C.usageError("--budget must be more than 0 seconds");
  }
  if (R.count("max-candidates"))
    O.MaxCandidates = R["max-candidates"].as<uint64_t>();
  if (R.count("workers")) {
    O.Workers = R["workers"].as<unsigned>();
    if (O.Workers == 0 || O.Workers > 256)
      return C.usageError("--workers must be 1 to 256");
  }
  if (R.count("stall")) {
    O.Stall = R["stall"].as<unsigned>();
    if (O.Stall == 0)
      return C.usageError("--stall must be at least 1");
  }
  if (R.count("seeds")) {
    auto S = parseSeedList(R["seeds"].as<std::string>(), "--seeds");
    if (!S)
      return C.usageError(llvm::toString(S.takeError()));
    O.Eval.Seeds = *S;
  }
  O.Eval.EdgeShapes = R.count("no-edge-shapes") == 0;
  if (R.count("epsilon"))
    O.Gate.Epsilon = R["epsilon"].as<double>();
  if (R.count("gate-k"))
    O.Gate.K = R["gate-k"].as<double>();
  if (R.count("s-floor"))
    O.Gate.Floor = R["s-floor"].as<double>();
  if (O.Gate.Epsilon < 0 || O.Gate.K < 0 || O.Gate.Floor < 1.0)
    return C.usageError("--epsilon and --gate-k must be at least 0, --s-floor at least 1.0 "
                        "(never commit a slower kernel)");
  if (R.count("max-groups")) {
    O.Eval.MaxSimulatedGroups = R["max-groups"].as<uint64_t>();
    if (O.Eval.MaxSimulatedGroups == 0)
      return C.usageError("--max-groups must be at least 1 (the workgroups the timing model "
                          "simulates)");
  }
  if (R.count("ensemble")) {
    O.Eval.Ensemble = R["ensemble"].as<unsigned>();
    if (O.Eval.Ensemble == 0 || O.Eval.Ensemble > timing::kMaxEnsemble)
      return C.usageError("--ensemble must be from 1 to " + std::to_string(timing::kMaxEnsemble) +
                          " (parameter sets), not " + std::to_string(O.Eval.Ensemble));
  }
  if (R.count("ensemble-seed"))
    O.Eval.EnsembleSeed = R["ensemble-seed"].as<uint64_t>();
  if (R.count("exec-timeout")) {
    if (!search::listsDriver(O.Driver, "exec:"))
      return C.usageError("--exec-timeout is for --driver exec:CMD");
    O.ExecTimeoutSeconds = R["exec-timeout"].as<double>();
    if (!(O.ExecTimeoutSeconds > 0))
      return C.usageError("--exec-timeout must be a positive number of seconds");
  }
  if (R.count("seed"))
    O.Seed = R["seed"].as<uint64_t>();
  bool AnyLlm = false;
  for (const char *Opt :
       {"llm-url", "llm-model", "llm-dialect", "llm-key-env", "llm-cache", "llm-timeout",
        "llm-retries", "llm-max-requests", "llm-max-tokens", "llm-reply-tokens"})
    AnyLlm |= R.count(Opt) > 0;
  if (AnyLlm && !search::listsDriver(O.Driver, "llm"))
    return C.usageError("the --llm-* options are for --driver llm");
  if (R.count("llm-url"))
    O.Llm.Url = R["llm-url"].as<std::string>();
  if (R.count("llm-model"))
    O.Llm.Model = R["llm-model"].as<std::string>();
  if (R.count("llm-dialect") && !llm::parseDialect(R["llm-dialect"].as<std::string>(), O.Llm.Dial))
    return C.usageError("--llm-dialect must be anthropic or openai");
  if (R.count("llm-key-env")) {
    O.Llm.KeyEnv = R["llm-key-env"].as<std::string>();
    if (!llm::isEnvName(O.Llm.KeyEnv))
      return C.usageError(llm::kKeyEnvNotAName);
  }
  if (R.count("llm-cache"))
    O.Llm.CacheDir = R["llm-cache"].as<std::string>();
  if (R.count("llm-timeout")) {
    O.Llm.TimeoutSeconds = R["llm-timeout"].as<double>();
    if (!(O.Llm.TimeoutSeconds > 0 && O.Llm.TimeoutSeconds <= llm::kMaxTimeoutSeconds))
      return C.usageError("--llm-timeout must be more than 0 and at most 86400 seconds");
  }
  if (R.count("llm-retries")) {
    O.Llm.Retries = R["llm-retries"].as<unsigned>();
    if (O.Llm.Retries > llm::kMaxRetries)
      return C.usageError("--llm-retries must be at most " + std::to_string(llm::kMaxRetries));
  }
  if (R.count("llm-max-requests"))
    O.Llm.MaxRequests = R["llm-max-requests"].as<uint64_t>();
  if (R.count("llm-max-tokens"))
    O.Llm.MaxTokens = R["llm-max-tokens"].as<uint64_t>();
  if (R.count("llm-reply-tokens")) {
    O.Llm.ReplyTokens = R["llm-reply-tokens"].as<unsigned>();
    if (O.Llm.ReplyTokens == 0 || O.Llm.ReplyTokens > llm::kMaxReplyTokens)
      return C.usageError("--llm-reply-tokens must be 1 to " +
                          std::to_string(llm::kMaxReplyTokens));
  }
  if (R.count("worker-launch")) {
    O.WorkerLaunch = R["worker-launch"].as<std::string>();
    O.WorkerCommand = llvm::sys::fs::getMainExecutable(argv[0], (void *)&main);
  }
  if (R.count("team-member") && !R.count("team-from"))
    return C.usageError("--team-member is for --team-from");
  if (R.count("team-from"))
    O.TeamFrom = R["team-from"].as<std::string>();
  if (R.count("team-member"))
    O.TeamMember = R["team-member"].as<unsigned>();
  O.KeepRejected = R.count("keep-rejected") > 0;
  O.Resume = R.count("resume") > 0;
  for (const auto &KV : R.arguments())
    O.Given.insert(KV.key());
  O.Eval.Backend = Dev.Backend;
  if (Dev.Backend == "hip" && (R.count("ensemble") || R.count("ensemble-seed")))
    return C.usageError("--ensemble and --ensemble-seed are the model's (emu): measured times "
                        "have no parameter sets");
  O.Eval.Threads = Dev.Threads ? Dev.Threads : 1;
  O.Eval.TimeoutSeconds = Dev.TimeoutSeconds;
  return agentSearch(C, O);
}
