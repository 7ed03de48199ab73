// The fake HIP runtime's control functions (fake_hip_runtime.cpp: fakehip_*), found with dlsym
// in the library the tests load through ASMEVO_HIP_LIBRARY.
#pragma once

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace asmevo::test {

// The fake's control functions.
struct Fake {
  void (*reset)();
  void (*fail)(const char *, int);
  void (*failAfter)(const char *, int, int);
  void (*setDevices)(int, int);
  void (*setArch)(const char *);
  void (*setElapsedMs)(float);
  void (*setElapsedSequence)(const float *, int);
  void (*setClockRate)(int);
  const char *(*calls)();
  int (*liveAllocations)();
  void (*ignoreAddressHint)(int);
  int (*liveVirtualMemory)();
  int (*liveModules)();
  int (*liveEvents)();
  size_t (*lastImage)(const void **, void *, size_t);
  size_t (*lastKernarg)(void *, size_t);
  int (*kernargCount)();
  size_t (*kernarg)(int, void *, size_t);

  explicit Fake(const char *Path) {
    void *H = dlopen(Path, RTLD_NOW | RTLD_LOCAL);
    if (!H) {
      ADD_FAILURE() << "cannot load the fake HIP runtime " << Path << ": " << dlerror();
      std::abort();
    }
    auto get = [&](auto &Fn, const char *Sym) {
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(dlsym(H, Sym));
      if (!Fn) {
        ADD_FAILURE() << Path << " lacks " << Sym;
        std::abort();
      }
    };
    get(reset, "fakehip_reset");
    get(fail, "fakehip_fail");
    get(failAfter, "fakehip_fail_after");
    get(setDevices, "fakehip_set_devices");
    get(setArch, "fakehip_set_arch");
    get(setElapsedMs, "fakehip_set_elapsed_ms");
    get(setElapsedSequence, "fakehip_set_elapsed_sequence");
    get(setClockRate, "fakehip_set_clock_rate");
    get(calls, "fakehip_calls");
    get(liveAllocations, "fakehip_live_allocations");
    get(ignoreAddressHint, "fakehip_ignore_address_hint");
    get(liveVirtualMemory, "fakehip_live_virtual_memory");
    get(liveModules, "fakehip_live_modules");
    get(liveEvents, "fakehip_live_events");
    get(lastImage, "fakehip_last_image");
    get(lastKernarg, "fakehip_last_kernarg");
    get(kernargCount, "fakehip_kernarg_count");
    get(kernarg, "fakehip_kernarg");
  }
  std::vector<std::string> callList() const {
    std::vector<std::string> L;
    std::istringstream S(calls());
    for (std::string Line; std::getline(S, Line);)
      L.push_back(Line);
    return L;
  }
  bool called(const std::string &Prefix) const {
    for (const std::string &C : callList())
      if (C.rfind(Prefix, 0) == 0)
        return true;
    return false;
  }
  std::vector<uint8_t> kernargOf(int I) const {
    std::vector<uint8_t> K(4096);
    K.resize(std::min<size_t>(kernarg(I, K.data(), K.size()), K.size()));
    return K;
  }
};

} // namespace asmevo::test
