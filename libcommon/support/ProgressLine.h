// A progress line for long runs ("kernel-run: 1234/8192 workgroups (15%)"), redrawn in place on
// stderr when stderr is a terminal and only after the run has taken a second; without a
// terminal it prints nothing (logs and pipes get no carriage returns). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace asmevo {

class ProgressLine {
public:
  // Enabled: the caller's decision (a terminal on stderr and not --quiet, see Cli).
  ProgressLine(std::string Tool, bool Enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  bool enabled() const { return Enabled; }
  // Redraw the line with Text (at most five times a second).
  void update(const std::string &Text);
  // Erase the line (before other output on stderr, and at the end).
  void clear();

private:
  std::string Tool;
  bool Enabled;
  bool Shown = false;
  std::mutex Lock;
  std::chrono::steady_clock::time_point Start, Last;
};

// "N/M" and the percentage: "1234/8192 workgroups (15%)".
std::string progressCount(uint64_t Done, uint64_t Total, const std::string &What);

} // namespace asmevo
