// The `exec:CMD` driver: an external proposer. Per proposal it runs `/bin/sh -c CMD` with the
// node's context JSON (format "asmevo-context") on stdin and reads one JSON object from its
// stdout: an edit (search/Edit.h) or {"done": true} when it has nothing more from this node.
// The reply is parsed, never run; anything else is a fault (malformed), and a command that
// fails, crashes or runs past its time is an infrastructure fault. The last gate outcome is in
// the next context's "feedback".
// The command runs in a process group of its own, and the whole group is killed (SIGKILL) as
// soon as the command ends, runs past --exec-timeout, writes more than a reply may hold, or the
// run is interrupted: nothing a proposal started outlives it, so none outlives the run (only a
// process that leaves the group, with setsid or setpgid, escapes).
#include "search/Driver.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Interrupt.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace asmevo::search {

namespace {

constexpr size_t kMaxReply = 1 << 20;

// How one run of the command ended.
struct Ran {
  enum { Exited, Signalled, TimedOut, TooLarge, Interrupted, NotStarted } How = NotStarted;
  int Code = 0; // the exit status or the signal
  std::string Error;
};

off_t sizeOf(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 ? St.st_size : 0;
}

// `/bin/sh -c Cmd` with stdin from In and stdout, stderr to Out, Err, in a new process group,
// for at most Seconds; then the group is killed, whatever is left of it. The leader is reaped
// only after the kill, so that its group id cannot have been reused by then.
Ran runInGroup(const std::string &Cmd, const std::string &In, const std::string &Out,
               const std::string &Err, double Seconds) {
  Ran R;
  posix_spawn_file_actions_t FA;
  posix_spawnattr_t A;
  posix_spawn_file_actions_init(&FA);
  posix_spawnattr_init(&A);
  posix_spawn_file_actions_addopen(&FA, 0, In.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&FA, 1, Out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&FA, 2, Err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  sigset_t None, All;
  sigemptyset(&None);
  sigfillset(&All);
  posix_spawnattr_setpgroup(&A, 0);
  posix_spawnattr_setsigmask(&A, &None);
  posix_spawnattr_setsigdefault(&A, &All);
  posix_spawnattr_setflags(&A,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const char *Argv[] = {"sh", "-c", Cmd.c_str(), nullptr};
  pid_t P = 0;
  int Rc = posix_spawn(&P, "/bin/sh", &FA, &A, const_cast<char *const *>(Argv), environ);
  posix_spawn_file_actions_destroy(&FA);
  posix_spawnattr_destroy(&A);
  if (Rc != 0) {
    R.Error = std::strerror(Rc);
    return R;
  }
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(Seconds);
  auto Nap = std::chrono::microseconds(500);
  R.How = Ran::Exited;
  for (;;) {
    siginfo_t Si;
    std::memset(&Si, 0, sizeof Si);
    int W = ::waitid(P_PID, id_t(P), &Si, WEXITED | WNOHANG | WNOWAIT);
    if ((W == 0 && Si.si_pid == P) || (W != 0 && errno != EINTR))
      break;
    if (interrupted()) {
      R.How = Ran::Interrupted;
      break;
    }
    if (std::chrono::steady_clock::now() >= Deadline) {
      R.How = Ran::TimedOut;
      break;
    }
    if (size_t(sizeOf(Out)) > kMaxReply || size_t(sizeOf(Err)) > kMaxReply) {
      R.How = Ran::TooLarge;
      break;
    }
    std::this_thread::sleep_for(Nap);
    Nap = std::min(Nap * 2, std::chrono::microseconds(20000));
  }
  ::kill(-P, SIGKILL);
  int Status = 0;
  while (::waitpid(P, &Status, 0) < 0 && errno == EINTR)
    ;
  if (R.How == Ran::Exited) {
    if (WIFSIGNALED(Status)) {
      R.How = Ran::Signalled;
      R.Code = WTERMSIG(Status);
    } else {
      R.Code = WEXITSTATUS(Status);
    }
  }
  return R;
}

class ExecDriver : public Driver {
public:
  ExecDriver(std::string Cmd, DriverOptions O) : Cmd(std::move(Cmd)), O(std::move(O)) {}
  std::string name() const override { return "exec:" + Cmd; }

  std::optional<Proposal> propose(const NodeView &, const nlohmann::json &Context) override {
    nlohmann::json C = Context;
    if (!Last.is_null())
      C["feedback"] = Last;
    std::string Base = O.WorkDir + "/exec-" + std::to_string(Calls++);
    std::string In = Base + ".in.json", Out = Base + ".out", Err = Base + ".err";
    auto Fault = [&](EditFault F, std::string M, bool Infra) {
      Proposal P;
      P.Fault = EditError{F, "exec driver '" + Cmd + "': " + M};
      P.Infrastructure = Infra;
      return P;
    };
    if (llvm::Error E = writeFileAtomic(In, C.dump(1) + "\n")) {
      llvm::consumeError(std::move(E));
      return Fault(EditFault::Malformed, "cannot write its input '" + In + "'", true);
    }
    Ran Run = runInGroup(Cmd, In, Out, Err, O.ExecTimeoutSeconds);
    auto Reply = readFile(Out);
    std::string Text = Reply ? (*Reply)->getBuffer().str() : std::string();
    if (!Reply)
      llvm::consumeError(Reply.takeError());
    auto ErrText = readFile(Err);
    std::string Stderr = ErrText ? llvm::StringRef((*ErrText)->getBuffer()).trim().str() : "";
    if (!ErrText)
      llvm::consumeError(ErrText.takeError());
    for (const std::string &F : {In, Out, Err})
      llvm::sys::fs::remove(F);
    // The run is stopping: nothing more from here (the controller sees the interrupt).
    if (Run.How == Ran::Interrupted)
      return std::nullopt;
    if (Run.How == Ran::TooLarge)
      return Fault(EditFault::TooLarge,
                   "wrote more than 1 MiB (a reply holds at most that); stopped", false);
    if (Run.How != Ran::Exited || Run.Code != 0) {
      std::string Why =
          Run.How == Ran::TimedOut     ? "ran past " + secondsText(O.ExecTimeoutSeconds) + " s"
          : Run.How == Ran::Signalled  ? "was killed by signal " + std::to_string(Run.Code)
          : Run.How == Ran::NotStarted ? "could not run: " + Run.Error
                                       : "exited with status " + std::to_string(Run.Code);
      if (!Stderr.empty())
        Why += " (stderr: " + llvm::StringRef(Stderr).take_front(200).str() + ")";
      return Fault(EditFault::Malformed, Why, true);
    }
    if (Text.size() > kMaxReply)
      return Fault(EditFault::TooLarge,
                   "reply of " + std::to_string(Text.size()) + " bytes (at most 1 MiB)", false);
    nlohmann::json J = nlohmann::json::parse(Text, nullptr, false);
    if (J.is_discarded())
      return Fault(EditFault::Malformed,
                   "reply is not JSON: '" + llvm::StringRef(Text).trim().take_front(80).str() + "'",
                   false);
    if (J.is_object() && J.contains("done") && J.size() <= 2)
      return std::nullopt;
    EditError E;
    auto Ed = parseEdit(J, "exec driver '" + Cmd + "' reply", E);
    if (!Ed) {
      Proposal P;
      P.Fault = E;
      return P;
    }
    return Proposal{std::move(*Ed), std::nullopt};
  }

  void feedback(const Feedback &F) override {
    Last = {{"node", F.Node},       {"parent", F.Parent},       {"stage", F.Stage},
            {"outcome", F.Outcome}, {"signature", F.Signature}, {"message", F.Message},
            {"speedup", F.Speedup}, {"verified", F.Verified},   {"committed", F.Committed}};
  }
  void redirect(const std::string &Why) override { Last["redirect"] = Why; }

private:
  std::string Cmd;
  DriverOptions O;
  uint64_t Calls = 0;
  nlohmann::json Last;
};

} // namespace

std::unique_ptr<Driver> makeExecDriver(const std::string &Command, const DriverOptions &O) {
  return std::make_unique<ExecDriver>(Command, O);
}

} // namespace asmevo::search
