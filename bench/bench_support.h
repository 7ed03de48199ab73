// Helpers the benchmarks share: wall-clock timing, medians, running a tool as a subprocess.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

extern char **environ;

namespace asmevo::bench {

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point T0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - T0).count();
}

inline double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

// Run Argv[0] with stdout to OutFile ("" = /dev/null) and stderr to ErrFile; true on exit 0.
inline bool spawn(const std::vector<std::string> &Argv, const std::string &OutFile,
                  const std::string &ErrFile) {
  std::vector<char *> A;
  for (const auto &S : Argv)
    A.push_back(const_cast<char *>(S.c_str()));
  A.push_back(nullptr);
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_addopen(&FA, 1, OutFile.empty() ? "/dev/null" : OutFile.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&FA, 2, ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t Pid;
  int Rc = posix_spawn(&Pid, A[0], &FA, nullptr, A.data(), environ);
  posix_spawn_file_actions_destroy(&FA);
  if (Rc != 0)
    return false;
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(Status) && WEXITSTATUS(Status) == 0;
}

inline std::string slurp(const std::string &Path) {
  std::ifstream F(Path, std::ios::binary);
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

} // namespace asmevo::bench
