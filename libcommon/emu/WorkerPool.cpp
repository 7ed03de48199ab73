#include "emu/WorkerPool.h"

#include <atomic>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <pthread.h>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace asmevo::emu {

namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spin until Ready() or kSpinMicroseconds have passed; true when Ready() held.
template <class F> bool spinUntil(F Ready) {
  const auto Until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
  for (;;) {
    for (unsigned I = 0; I < 256; ++I) {
      if (Ready())
        return true;
      cpuRelax();
    }
    if (std::chrono::steady_clock::now() > Until)
      return Ready();
  }
}

// The pool. Never destroyed: its threads may still be waiting on it while the process exits.
struct Pool {
  std::mutex RunLock; // one run at a time
  std::mutex M;       // with the two condition variables, for sleeping
  std::condition_variable Wake, Done;
  // The current run: its generation (bumped, under M, to start one) in the high 48 bits and its
  // job count in the low 16, read in one load so that a thread never pairs one run's count with
  // another's generation.
  std::atomic<uint64_t> Run{0};
  std::atomic<unsigned> Pending{0}; // pool jobs of the current run not yet returned
  llvm::function_ref<void(unsigned)> Job;
  unsigned NumThreads = 0; // started so far, detached; thread I - 1 runs Job(I)

  void worker(unsigned I, uint64_t Seen) {
    for (;;) {
      auto Started = [&] { return Run.load(std::memory_order_acquire) != Seen; };
      if (!spinUntil(Started)) {
        std::unique_lock<std::mutex> L(M);
        Wake.wait(L, Started);
      }
      Seen = Run.load(std::memory_order_acquire);
      if (I >= (Seen & 0xffff))
        continue; // not needed in this run
      Job(I);
      if (Pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> L(M);
        Done.notify_one();
      }
    }
  }

  void run(unsigned Count, llvm::function_ref<void(unsigned)> F) {
    std::lock_guard<std::mutex> Turn(RunLock);
    while (NumThreads + 1 < Count) {
      const unsigned I = ++NumThreads;
      // It waits for the generation after the one now current: the run started below.
      const uint64_t Now = Run.load(std::memory_order_relaxed);
      std::thread([this, I, Now] { worker(I, Now); }).detach();
    }
    Job = F;
    Pending.store(Count - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> L(M);
      const uint64_t Next = ((Run.load(std::memory_order_relaxed) >> 16) + 1) << 16;
      Run.store(Next | Count, std::memory_order_release);
    }
    Wake.notify_all();
    std::exception_ptr Failed;
    try {
      F(0);
    } catch (...) {
      Failed = std::current_exception();
    }
    auto Finished = [&] { return Pending.load(std::memory_order_acquire) == 0; };
    if (!spinUntil(Finished)) {
      std::unique_lock<std::mutex> L(M);
      Done.wait(L, Finished);
    }
    if (Failed)
      std::rethrow_exception(Failed);
  }
};

std::atomic<Pool *> ThePool{nullptr};
std::once_flag AtForkOnce;

Pool &pool() {
  std::call_once(AtForkOnce, [] {
    // The child of a fork() has none of the pool's threads: it starts a pool of its own.
    pthread_atfork(nullptr, nullptr, [] { ThePool.store(nullptr); });
  });
  Pool *P = ThePool.load(std::memory_order_acquire);
  if (!P) {
    Pool *Fresh = new Pool;
    if (ThePool.compare_exchange_strong(P, Fresh, std::memory_order_acq_rel))
      P = Fresh;
    else
      delete Fresh;
  }
  return *P;
}

} // namespace

void runOnWorkers(unsigned N, llvm::function_ref<void(unsigned)> Job) {
  assert(N <= kMaxWorkers && "the run's job count must fit Pool::Run's low 16 bits");
  if (N <= 1) {
    Job(0);
    return;
  }
  pool().run(N, Job);
}

} // namespace asmevo::emu
