// The stop request flag and its signal handlers.
#include "support/Interrupt.h"

#include <atomic>
#include <csignal>

namespace asmevo {

namespace {
std::atomic<int> Requested{0};

extern "C" void onStopSignal(int Sig) {
  if (Requested.exchange(Sig) != 0) { // the second request: stop now, as the default would
    std::signal(Sig, SIG_DFL);
    std::raise(Sig);
  }
}
} // namespace

void catchInterrupts() {
  struct sigaction SA = {};
  SA.sa_handler = onStopSignal;
  sigemptyset(&SA.sa_mask);
  sigaction(SIGINT, &SA, nullptr);
  sigaction(SIGTERM, &SA, nullptr);
}

bool interrupted() { return Requested.load(std::memory_order_relaxed) != 0; }

int interruptSignal() { return Requested.load(); }

int interruptExitCode() { return 128 + (interruptSignal() ? interruptSignal() : SIGINT); }

} // namespace asmevo
