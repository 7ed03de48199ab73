// Workers in other processes (search/Worker.h): a candidate evaluated by `asmevo-agent --worker`.
#include "search/Worker.h"

#include "codeobj/Input.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <optional>

namespace asmevo::search {

namespace {

std::string quoted(const std::string &S) {
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

std::string lastLine(const std::string &Path) {
  auto B = readFile(Path);
  if (!B) {
    llvm::consumeError(B.takeError());
    return "";
  }
  llvm::StringRef T = llvm::StringRef((*B)->getBuffer()).rtrim();
  size_t NL = T.rfind('\n');
  return (NL == llvm::StringRef::npos ? T : T.drop_front(NL + 1)).take_front(300).str();
}

} // namespace

EvalResult evaluateThrough(const std::string &Launch, const std::string &Self,
                           const std::string &NodeDir, const std::string &Text) {
  EvalResult R;
  auto Fail = [&](std::string Msg) {
    R.Result = Outcome::RuntimeError;
    R.Stage = "worker";
    R.Message = std::move(Msg);
    R.Signature = failureSignature(R.Result, R.Message);
    R.Infrastructure = true;
    return R;
  };
  std::string EvalPath = NodeDir + "/eval.json", Log = NodeDir + "/worker.log";
  llvm::sys::fs::remove(EvalPath);
  if (llvm::Error E = writeFileAtomic(NodeDir + "/cand.s", Text)) {
    R = Fail(errorOutcome(std::move(E)).Message);
    R.Stage = "io";
    return R;
  }
  std::string Cmd = Launch + " " + quoted(Self) + " --worker " + quoted(NodeDir) + " -q";
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef("/dev/null"), llvm::StringRef(Log),
                                                llvm::StringRef(Log)};
  std::string Msg;
  bool Failed = false;
  int Rc = llvm::sys::ExecuteAndWait("/bin/sh", {"sh", "-c", Cmd}, std::nullopt, Redirects, 0, 0,
                                     &Msg, &Failed);
  if (Failed)
    return Fail("the worker step (" + Cmd + ") could not run: " + Msg);
  auto B = readFile(EvalPath);
  if (!B) {
    llvm::consumeError(B.takeError());
    std::string Last = lastLine(Log);
    return Fail("the worker step (" + Cmd + ") " +
                (Rc < 0 ? std::string("crashed") : "exited with status " + std::to_string(Rc)) +
                " and wrote no result" + (Last.empty() ? "" : ": " + Last));
  }
  llvm::StringRef T = (*B)->getBuffer();
  nlohmann::json J = nlohmann::json::parse(T.begin(), T.end(), nullptr, false);
  try {
    if (J.is_discarded())
      return Fail("'" + EvalPath + "': not valid JSON");
    R = parseEvalResult(J);
  } catch (const nlohmann::json::exception &E) {
    return Fail("'" + EvalPath + "': " + E.what());
  }
  llvm::sys::fs::remove(EvalPath);
  if (lastLine(Log).empty())
    llvm::sys::fs::remove(Log);
  return R;
}

Report runWorker(const std::string &NodeDir, const std::string &Tool) {
  Report Rep;
  Rep.Tool = Tool;
  auto Fail = [&](llvm::Error E) {
    Rep.fail(std::move(E));
    return Rep;
  };
  std::string RunDir = llvm::sys::path::parent_path(llvm::sys::path::parent_path(NodeDir)).str();
  std::string OptPath = (RunDir.empty() ? "." : RunDir) + "/worker.json";
  auto OB = readFile(OptPath);
  if (!OB)
    return Fail(OB.takeError());
  llvm::StringRef OT = (*OB)->getBuffer();
  EvalOptions E;
  try {
    nlohmann::json J = nlohmann::json::parse(OT.begin(), OT.end());
    E = parseEvalOptions(J);
  } catch (const nlohmann::json::exception &X) {
    return Fail(makeError("'" + OptPath + "': " + X.what()));
  }
  // K0's runs that the controller made (RUN_DIR/k0-runs), read, never written: a worker writes
  // nothing outside its node directory.
  E.K0Runs = check::makeK0RunCache((RunDir.empty() ? "." : RunDir) + "/k0-runs", true);
  auto Text = readFile(NodeDir + "/cand.s");
  if (!Text)
    return Fail(Text.takeError());
  auto K0 = openCodeObject(E.K0);
  if (!K0) {
    ErrorOutcome EO = errorOutcome(K0.takeError());
    Rep.Result = Outcome::RuntimeError;
    Rep.Message = "K0: " + EO.Message;
    return Rep;
  }
  Rep.Backend = E.Backend;
  Rep.Seeds = E.Seeds;
  EvalResult R = gatedEval((*Text)->getBuffer().str(), NodeDir, (*K0)->C, E);
  if (llvm::Error Err = writeFileAtomic(NodeDir + "/eval.json", evalResultJson(R).dump(1) + "\n"))
    return Fail(std::move(Err));
  Rep.Message = "evaluated '" + NodeDir + "': " + outcomeName(R.Result) +
                (R.Stage.empty() ? "" : " at " + R.Stage);
  Rep.Body = {{"node_dir", NodeDir}, {"outcome", outcomeName(R.Result)}, {"stage", R.Stage}};
  return Rep;
}

} // namespace asmevo::search
