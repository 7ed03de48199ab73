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
  void (*Reset)();
  void (*Fail)(const char *, int);
  void (*FailAfter)(const char *, int, int);
  void (*SetDevices)(int, int);
  void (*SetArch)(const char *);
  void (*SetElapsedMs)(float);
  void (*SetElapsedSequence)(const float *, int);
  void (*SetClockRate)(int);
  const char *(*Calls)();
  int (*LiveAllocations)();
  void (*IgnoreAddressHint)(int);
  int (*LiveVirtualMemory)();
  int (*LiveModules)();
  int (*LiveEvents)();
  size_t (*LastImage)(const void **, void *, size_t);
  size_t (*LastKernarg)(void *, size_t);
  int (*KernargCount)();
  size_t (*Kernarg)(int, void *, size_t);

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
    get(Reset, "fakehip_reset");
    get(Fail, "fakehip_fail");
    get(FailAfter, "fakehip_fail_after");
    get(SetDevices, "fakehip_set_devices");
    get(SetArch, "fakehip_set_arch");
    get(SetElapsedMs, "fakehip_set_elapsed_ms");
    get(SetElapsedSequence, "fakehip_set_elapsed_sequence");
    get(SetClockRate, "fakehip_set_clock_rate");
    get(Calls, "fakehip_calls");
    get(LiveAllocations, "fakehip_live_allocations");
    get(IgnoreAddressHint, "fakehip_ignore_address_hint");
    get(LiveVirtualMemory, "fakehip_live_virtual_memory");
    get(LiveModules, "fakehip_live_modules");
    get(LiveEvents, "fakehip_live_events");
    get(LastImage, "fakehip_last_image");
    get(LastKernarg, "fakehip_last_kernarg");
    get(KernargCount, "fakehip_kernarg_count");
    get(Kernarg, "fakehip_kernarg");
  }
  std::vector<std::string> callList() const {
    std::vector<std::string> L;
    std::istringstream S(Calls());
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
    K.resize(std::min<size_t>(Kernarg(I, K.data(), K.size()), K.size()));
    return K;
  }
};

} // namespace asmevo::test
