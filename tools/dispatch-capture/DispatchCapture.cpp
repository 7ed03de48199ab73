#include "DispatchCapture.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Plural.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace asmevo {

namespace {

// The interposer: $ASMEVO_CAPTURE_LIBRARY, else lib/libasmevo-capture.so next to bin/.
std::string interposerPath() {
  if (const char *E = std::getenv("ASMEVO_CAPTURE_LIBRARY"); E && *E)
    return E;
  llvm::SmallString<256> Exe(llvm::sys::fs::getMainExecutable(nullptr, nullptr));
  llvm::sys::path::remove_filename(Exe); // .../bin
  llvm::sys::path::remove_filename(Exe); // ...
  llvm::sys::path::append(Exe, "lib", "libasmevo-capture.so");
  return std::string(Exe);
}

std::string absolute(const std::string &P) {
  llvm::SmallString<256> A(P);
  llvm::sys::fs::make_absolute(A);
  return std::string(A);
}

// Run Cmd with the capture environment; returns its wait status, or -1 with errno set when
// fork fails. A command that cannot be executed exits 127 after saying why on stderr. With
// StdoutToStderr the application's standard output goes to standard error (--json: stdout is
// the report's).
int runApplication(const std::vector<std::string> &Cmd, const std::vector<std::string> &Env,
                   bool StdoutToStderr) {
  std::fflush(nullptr);
  pid_t Pid = fork();
  if (Pid < 0)
    return -1;
  if (Pid == 0) {
    if (StdoutToStderr)
      dup2(2, 1);
    for (const std::string &E : Env)
      putenv(const_cast<char *>(E.c_str()));
    std::string MyPid = "ASMEVO_CAPTURE_PID=" + std::to_string(getpid());
    putenv(const_cast<char *>(MyPid.c_str()));
    std::vector<char *> Argv;
    for (const std::string &A : Cmd)
      Argv.push_back(const_cast<char *>(A.c_str()));
    Argv.push_back(nullptr);
    execvp(Argv[0], Argv.data());
    std::string M =
        "dispatch-capture: error: cannot run '" + Cmd[0] + "': " + std::strerror(errno) + "\n";
    (void)!write(2, M.data(), M.size());
    _exit(127);
  }
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  return Status;
}

std::string exitText(int Status) {
  if (WIFSIGNALED(Status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(Status)) + " (" +
           strsignal(WTERMSIG(Status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(Status));
}

std::string dispatchList(const nlohmann::json &Seen) {
  std::string S;
  uint64_t Total = 0;
  for (const auto &[Name, N] : Seen.items()) {
    S += (S.empty() ? "" : ", ") + Name + " x" + std::to_string(N.get<uint64_t>());
    Total += N.get<uint64_t>();
  }
  return countOf(Total, "dispatch", "dispatches") + (S.empty() ? "" : " (" + S + ")");
}

} // namespace

int runDispatchCapture(const Cli &C, const CaptureConfig &Cfg) {
  Report Rep = C.report();
  Rep.Body["command"] = Cfg.Command;
  std::string Lib = interposerPath();
  if (!llvm::sys::fs::exists(Lib))
    return C.fail(Rep, Outcome::InputError,
                  "no capture interposer at '" + Lib +
                      "' (build it with the tools, or set ASMEVO_CAPTURE_LIBRARY)");
  llvm::SmallString<128> Dir;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory("asmevo-capture", Dir))
    return C.fail(Rep, Outcome::InputError, "cannot make a temporary directory: " + EC.message());
  std::string Status = std::string(Dir) + "/status.json";
  std::string Preload = Lib;
  if (const char *P = std::getenv("LD_PRELOAD"); P && *P)
    Preload += std::string(":") + P;
  std::vector<std::string> Env = {"LD_PRELOAD=" + Preload,
                                  "ASMEVO_CAPTURE_OUT=" + absolute(Cfg.Output),
                                  "ASMEVO_CAPTURE_STATUS=" + Status,
                                  "ASMEVO_CAPTURE_KERNEL=" + Cfg.KernelRegex,
                                  "ASMEVO_CAPTURE_NTH=" + std::to_string(Cfg.Nth),
                                  "ASMEVO_CAPTURE_MAX_BYTES=" + std::to_string(Cfg.MaxBytes)};
  if (auto P = C.progress())
    P("running " + Cfg.Command[0] + " with " + Lib);
  int Wait = runApplication(Cfg.Command, Env, C.common().Json);
  auto StatusText = readFile(Status);
  llvm::sys::fs::remove(Status);
  llvm::sys::fs::remove(Dir);
  if (Wait == -1)
    return C.fail(Rep, Outcome::RuntimeError,
                  std::string("cannot start the application: ") + std::strerror(errno));
  std::string App = "'" + Cfg.Command[0] + "'";
  Rep.Body["application"] = WIFSIGNALED(Wait) ? nlohmann::json{{"signal", WTERMSIG(Wait)}}
                                              : nlohmann::json{{"exit_status", WEXITSTATUS(Wait)}};
  if (!StatusText) {
    llvm::consumeError(StatusText.takeError());
    if (!WIFSIGNALED(Wait) && WEXITSTATUS(Wait) == 127)
      return C.fail(Rep, Outcome::InputError,
                    App + " could not be run, or exited with status 127 before a dispatch "
                          "was captured");
    return C.fail(Rep, Outcome::InputError,
                  App + " " + exitText(Wait) + " before a matching dispatch was captured");
  }
  nlohmann::json J = nlohmann::json::parse((*StatusText)->getBuffer().str(), nullptr, false);
  if (J.is_discarded() || !J.contains("state"))
    return C.fail(Rep, Outcome::RuntimeError, "the interposer's status file is unreadable");
  std::string State = J["state"];
  std::string Selection =
      (Cfg.KernelRegex.empty() ? "any kernel" : "--kernel '" + Cfg.KernelRegex + "'") + ", --nth " +
      std::to_string(Cfg.Nth);
  if (State == "none")
    return C.fail(Rep, Outcome::InputError,
                  "no dispatch matched (" + Selection + "): " + App + " " + exitText(Wait) +
                      " after " + dispatchList(J["dispatches"]));
  if (State == "error")
    return C.fail(Rep,
                  J.value("kind", "") == "runtime" ? Outcome::RuntimeError : Outcome::InputError,
                  "dispatch " + std::to_string(Cfg.Nth) + " of '" + J.value("kernel", "") +
                      "' was not captured: " + J.value("message", ""));
  Rep.Backend = "hip";
  Rep.Message =
      "captured dispatch " + std::to_string(J["nth"].get<uint64_t>()) + " of '" +
      J["kernel"].get<std::string>() + "': " + countOf(J["regions"].get<uint64_t>(), "region") +
      " and " + countOf(J.value("globals", uint64_t(0)), "global variable") + ", " +
      countOf(J["bytes"].get<uint64_t>(), "byte") + " each before and after, into " + Cfg.Output;
  Rep.Notes.push_back("runtime " + J["runtime"].get<std::string>() + ", device " +
                      J["device"].get<std::string>());
  if (Wait != 0)
    Rep.Notes.push_back("the application then " + exitText(Wait));
  Rep.Body.update({{"output", Cfg.Output},
                   {"kernel", J["kernel"]},
                   {"nth", J["nth"]},
                   {"regions", J["regions"]},
                   {"globals", J["globals"]},
                   {"bytes", J["bytes"]},
                   {"runtime", J["runtime"]},
                   {"device", J["device"]}});
  if (!C.common().Quiet && !C.common().Json) {
    llvm::errs() << C.tool() << ": " << Rep.Message << "\n";
    for (const std::string &N : Rep.Notes)
      llvm::errs() << "  " << N << "\n";
  }
  return C.common().Json ? C.printJson(Rep) : Rep.exitCode();
}

} // namespace asmevo
