// The emulator's host threads: one process-wide pool that outlives a dispatch. Starting threads
// for every dispatch cost each run their start-up, and the scheduler often first queued a new
// thread on the busy CPU of the thread that made it (on the 2-vCPU VM, worker 1 began 0.15 to
// 0.7 ms into runs of about 5 ms). The pool's threads wait for the next run spinning for a
// while (kSpinMicroseconds), as OpenMP runtimes do, then sleep.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

namespace asmevo::emu {

// How long a pool thread, or the caller waiting for the pool, spins before it sleeps.
inline constexpr unsigned kSpinMicroseconds = 2000;

// The most jobs of one run; callers cap their counts at it (Emulator::run does).
inline constexpr unsigned kMaxWorkers = 0xffff;

// Runs Job(0), ..., Job(N - 1) (N at most kMaxWorkers) at the same time, Job(0) on the calling
// thread and the others on the pool's threads (started on first use), and returns when all have
// returned. A Job(0) exception is rethrown after the others have finished; the others must not
// throw. Runs from different threads take turns. A child process made by fork() gets a fresh pool.
void runOnWorkers(unsigned N, llvm::function_ref<void(unsigned)> Job);

} // namespace asmevo::emu
