// The emulator's process-wide host threads (WorkerPool.h): every job of a run exactly once and
// at the same time as the others, job 0 on the caller, many runs back to back with changing
// counts, a job 0 exception after the others have finished, callers on two threads, and a
// forked child with a pool of its own.
#include "emu/WorkerPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace asmevo::emu;

namespace {

// Every job of one run waits at a barrier for all the others (for at most 10 s): all N get past
// it only if they run at the same time, not one after another.
void runConcurrently(unsigned N, std::vector<int> &Calls) {
  Calls.assign(N, 0);
  std::atomic<unsigned> Arrived{0}, Passed{0};
  const std::thread::id Caller = std::this_thread::get_id();
  std::atomic<bool> Job0OnCaller{false};
  runOnWorkers(N, [&](unsigned I) {
    ASSERT_LT(I, N);
    ++Calls[I];
    if (I == 0)
      Job0OnCaller = std::this_thread::get_id() == Caller;
    Arrived.fetch_add(1);
    const auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Arrived.load() < N && std::chrono::steady_clock::now() < Until)
      std::this_thread::yield();
    Passed += Arrived.load() == N;
  });
  EXPECT_TRUE(Job0OnCaller);
  ASSERT_EQ(Passed.load(), N) << "the jobs of a run did not all run at the same time";
}

TEST(WorkerPool, EveryJobOnceAndTogetherRunAfterRun) {
  std::vector<int> Calls;
  // Growing, shrinking and repeated counts: threads beyond a run's count sit it out.
  for (unsigned N : {2u, 2u, 4u, 1u, 3u, 8u, 2u, 5u, 2u}) {
    for (unsigned Rep = 0; Rep < 50; ++Rep) {
      ASSERT_NO_FATAL_FAILURE(runConcurrently(N, Calls));
      for (unsigned I = 0; I < N; ++I)
        ASSERT_EQ(Calls[I], 1) << "job " << I << " of " << N;
    }
  }
}

TEST(WorkerPool, Job0ExceptionAfterTheOthersFinish) {
  std::atomic<unsigned> Finished{0};
  try {
    runOnWorkers(4, [&](unsigned I) {
      if (I == 0)
        throw std::runtime_error("job 0 failed");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      Finished.fetch_add(1);
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error &E) {
    EXPECT_STREQ(E.what(), "job 0 failed");
    EXPECT_EQ(Finished.load(), 3u); // the others had returned
  }
  // The pool is still usable.
  std::vector<int> Calls;
  ASSERT_NO_FATAL_FAILURE(runConcurrently(4, Calls));
}

TEST(WorkerPool, CallersOnTwoThreadsTakeTurns) {
  std::atomic<int> Bad{0};
  auto Caller = [&] {
    for (unsigned Rep = 0; Rep < 100; ++Rep) {
      std::vector<int> Calls(3, 0);
      runOnWorkers(3, [&](unsigned I) { ++Calls[I]; });
      for (int C : Calls)
        Bad += C != 1;
    }
  };
  std::thread A(Caller), B(Caller);
  A.join();
  B.join();
  EXPECT_EQ(Bad.load(), 0);
}

TEST(WorkerPool, ForkedChildGetsAPoolOfItsOwn) {
  std::vector<int> Calls;
  ASSERT_NO_FATAL_FAILURE(runConcurrently(2, Calls)); // the parent's pool has a thread now
  const pid_t Pid = fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    alarm(20); // a child stuck on the parent's threads dies of SIGALRM
    std::atomic<unsigned> Ran{0};
    runOnWorkers(3, [&](unsigned) { Ran.fetch_add(1); });
    _exit(Ran.load() == 3 ? 0 : 1);
  }
  int Status = 0;
  ASSERT_EQ(waitpid(Pid, &Status, 0), Pid);
  ASSERT_TRUE(WIFEXITED(Status)) << "child killed by signal " << WTERMSIG(Status);
  EXPECT_EQ(WEXITSTATUS(Status), 0);
}

} // namespace
