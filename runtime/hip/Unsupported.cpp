// Every entry point of libamdhip64 5.2 (EntryPoints.def) that the emulated runtime does not
// implement: a weak definition that reports the call by name and returns hipErrorNotSupported
// (hiprtc's HIPRTC_ERROR_INTERNAL_ERROR; nothing for the few that return void). The implemented
// ones (Api*.cpp) are strong definitions and win at link time. The stubs take `...` and read no
// argument, so one definition serves every signature (x86-64 System V: arguments are the
// caller's to clean up). This file includes no HIP header: their declarations would clash.
#include <cstdio>

namespace asmevo::hiprt {
// hipError_t values (hip_runtime_api.h 5.2): hipErrorNotSupported = 801.
int unsupportedEntry(const char *Name);
} // namespace asmevo::hiprt

// HIPRTC_ERROR_INTERNAL_ERROR (hiprtc.h 5.2).
static constexpr int HiprtcInternalError = 11;

#define HIPRT_STUB_E(Id, Symbol)                                                                   \
  extern "C" __attribute__((weak)) int Id(...) __asm__(Symbol);                                    \
  extern "C" __attribute__((weak)) int Id(...) { return asmevo::hiprt::unsupportedEntry(Symbol); }
#define HIPRT_STUB_R(Id, Symbol)                                                                   \
  extern "C" __attribute__((weak)) int Id(...) __asm__(Symbol);                                    \
  extern "C" __attribute__((weak)) int Id(...) {                                                   \
    asmevo::hiprt::unsupportedEntry(Symbol);                                                       \
    return HiprtcInternalError;                                                                    \
  }
#define HIPRT_STUB_V(Id, Symbol)                                                                   \
  extern "C" __attribute__((weak)) void Id(...) __asm__(Symbol);                                   \
  extern "C" __attribute__((weak)) void Id(...) { asmevo::hiprt::unsupportedEntry(Symbol); }
#define HIPRT_STUB_I(Id, Symbol)

#define HIP_ENTRY(Id, Symbol, Kind) HIPRT_STUB_##Kind(Id, Symbol)
#include "EntryPoints.def"
