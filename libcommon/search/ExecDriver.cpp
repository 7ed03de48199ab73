// The `exec:CMD` driver: an external proposer. Per proposal it runs `/bin/sh -c CMD` with the
// node's context JSON (format "asmevo-context") on stdin and reads one JSON object from its
// stdout: an edit (search/Edit.h) or {"done": true} when it has nothing more from this node.
// The reply is parsed, never run; anything else is a fault (malformed), and a command that
// fails, crashes or runs past its time is an infrastructure fault. The last gate outcome is in
// the next context's "feedback".
#include "search/Driver.h"

#include "support/FileIO.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

namespace asmevo::search {

namespace {

constexpr size_t kMaxReply = 1 << 20;

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
    std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(In), llvm::StringRef(Out),
                                                  llvm::StringRef(Err)};
    std::string Msg;
    bool Failed = false;
    int Rc = llvm::sys::ExecuteAndWait("/bin/sh", {"sh", "-c", Cmd}, std::nullopt, Redirects,
                                       unsigned(O.ExecTimeoutSeconds), 0, &Msg, &Failed);
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
    if (Failed || Rc != 0) {
      std::string Why =
          Rc == -2 ? "crashed or ran past " + std::to_string(unsigned(O.ExecTimeoutSeconds)) + " s"
          : Failed ? "could not run: " + Msg
                   : "exited with status " + std::to_string(Rc);
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
