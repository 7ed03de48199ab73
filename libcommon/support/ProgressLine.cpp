// The in-place progress line on a terminal.
#include "support/ProgressLine.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

ProgressLine::ProgressLine(std::string Tool, bool Enabled)
    : Tool(std::move(Tool)), Enabled(Enabled), Start(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(const std::string &Text) {
  if (!Enabled)
    return;
  auto Now = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> L(Lock, std::try_to_lock);
  if (!L.owns_lock()) // another thread is drawing
    return;
  if (Now - Start < std::chrono::seconds(1) ||
      (Shown && Now - Last < std::chrono::milliseconds(200)))
    return;
  Last = Now;
  Shown = true;
  llvm::errs() << "\r" << Tool << ": " << Text << "\x1b[K";
  llvm::errs().flush();
}

void ProgressLine::clear() {
  if (!Enabled)
    return;
  std::lock_guard<std::mutex> L(Lock);
  if (!Shown)
    return;
  llvm::errs() << "\r\x1b[K";
  llvm::errs().flush();
  Shown = false;
}

std::string progressCount(uint64_t Done, uint64_t Total, const std::string &What) {
  std::string S = std::to_string(Done) + "/" + std::to_string(Total) + " " + What;
  if (Total)
    S += " (" + std::to_string(Done * 100 / Total) + "%)";
  return S;
}

} // namespace asmevo
