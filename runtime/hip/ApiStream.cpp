// Streams, events and synchronization. Every operation completes inside the call that enqueues
// it, so each stream is an in-order queue that is always empty: synchronizing returns at once
// (with a launch failure not yet reported by a synchronizing call), and an event records the
// host's steady clock when its stream reaches it. hipEventElapsedTime therefore measures
// emulation time on the host, never GPU time, and says so on stderr the first time. With
// ASMEVO_HIP_EVENT_TIMES=model, events read the modeled device clock instead (Runtime.h), and
// hipEventElapsedTime says that those are modeled times.
#include "Entry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace asmevo::hiprt;

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool knownStream(Runtime &R, hipStream_t S) {
  return !S || std::any_of(R.Streams.begin(), R.Streams.end(),
                           [&](const std::unique_ptr<ihipStream_t> &P) { return P.get() == S; });
}
bool knownEvent(Runtime &R, hipEvent_t E) {
  return E && std::any_of(R.Events.begin(), R.Events.end(),
                          [&](const std::unique_ptr<ihipEvent_t> &P) { return P.get() == E; });
}
} // namespace

extern "C" {

hipError_t hipStreamCreateWithFlags(hipStream_t *Stream, unsigned Flags) {
  HIPRT_ENTRY;
  if (!Stream)
    return R.fail(hipErrorInvalidValue, "hipStreamCreate", "stream is null");
  R.Streams.push_back(std::make_unique<ihipStream_t>());
  R.Streams.back()->Flags = Flags;
  *Stream = R.Streams.back().get();
  return hipSuccess;
}
hipError_t hipStreamCreate(hipStream_t *Stream) { return hipStreamCreateWithFlags(Stream, 0); }
hipError_t hipStreamCreateWithPriority(hipStream_t *Stream, unsigned Flags, int Priority) {
  return hipStreamCreateWithFlags(Stream, Flags);
}

hipError_t hipStreamDestroy(hipStream_t Stream) {
  HIPRT_ENTRY;
  auto It = std::find_if(R.Streams.begin(), R.Streams.end(),
                         [&](const std::unique_ptr<ihipStream_t> &P) { return P.get() == Stream; });
  if (It == R.Streams.end())
    return R.fail(hipErrorInvalidHandle, "hipStreamDestroy", "not a stream of this runtime");
  R.Streams.erase(It);
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t Stream) {
  HIPRT_ENTRY;
  if (!knownStream(R, Stream))
    return R.fail(hipErrorInvalidHandle, "hipStreamSynchronize", "not a stream of this runtime");
  return R.pendingError();
}

hipError_t hipStreamQuery(hipStream_t Stream) {
  HIPRT_ENTRY;
  if (!knownStream(R, Stream))
    return R.fail(hipErrorInvalidHandle, "hipStreamQuery", "not a stream of this runtime");
  return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t Stream, hipEvent_t Event, unsigned Flags) {
  HIPRT_ENTRY;
  if (!knownStream(R, Stream) || !knownEvent(R, Event))
    return R.fail(hipErrorInvalidHandle, "hipStreamWaitEvent",
                  "not a stream or event of this "
                  "runtime");
  return hipSuccess;
}

hipError_t hipDeviceSynchronize() {
  HIPRT_ENTRY;
  return R.pendingError();
}

hipError_t hipEventCreateWithFlags(hipEvent_t *Event, unsigned Flags) {
  HIPRT_ENTRY;
  if (!Event)
    return R.fail(hipErrorInvalidValue, "hipEventCreate", "event is null");
  R.Events.push_back(std::make_unique<ihipEvent_t>());
  R.Events.back()->Flags = Flags;
  *Event = R.Events.back().get();
  return hipSuccess;
}
hipError_t hipEventCreate(hipEvent_t *Event) { return hipEventCreateWithFlags(Event, 0); }

hipError_t hipEventDestroy(hipEvent_t Event) {
  HIPRT_ENTRY;
  auto It = std::find_if(R.Events.begin(), R.Events.end(),
                         [&](const std::unique_ptr<ihipEvent_t> &P) { return P.get() == Event; });
  if (It == R.Events.end())
    return R.fail(hipErrorInvalidHandle, "hipEventDestroy", "not an event of this runtime");
  R.Events.erase(It);
  return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t Event, hipStream_t Stream) {
  HIPRT_ENTRY;
  if (!knownEvent(R, Event) || !knownStream(R, Stream))
    return R.fail(hipErrorInvalidHandle, "hipEventRecord",
                  "not an event or stream of this "
                  "runtime");
  Event->Recorded = true;
  Event->HostSeconds = now();
  Event->ModeledSeconds = R.ModeledSeconds;
  return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t Event) {
  HIPRT_ENTRY;
  if (!knownEvent(R, Event))
    return R.fail(hipErrorInvalidHandle, "hipEventSynchronize", "not an event of this runtime");
  return hipSuccess;
}

hipError_t hipEventQuery(hipEvent_t Event) {
  HIPRT_ENTRY;
  if (!knownEvent(R, Event))
    return R.fail(hipErrorInvalidHandle, "hipEventQuery", "not an event of this runtime");
  return hipSuccess;
}

hipError_t hipEventElapsedTime(float *Ms, hipEvent_t Start, hipEvent_t Stop) {
  HIPRT_ENTRY;
  if (!Ms)
    return R.fail(hipErrorInvalidValue, "hipEventElapsedTime", "ms is null");
  if (!knownEvent(R, Start) || !knownEvent(R, Stop))
    return R.fail(hipErrorInvalidHandle, "hipEventElapsedTime", "not an event of this runtime");
  if (!Start->Recorded || !Stop->Recorded)
    return R.fail(hipErrorInvalidHandle, "hipEventElapsedTime", "an event was never recorded");
  static bool Said = false;
  if (!Said) {
    Said = true;
    if (R.ModelTimes)
      std::fprintf(stderr,
                   "asmevo-hip: hipEventElapsedTime: these are modeled device times (kernel-time's "
                   "model of %s, %s; kernels only, copies take none), not measured GPU times\n",
                   R.Params ? R.Params->Device.c_str() : R.processor().c_str(),
                   R.Params ? R.Params->Path.c_str() : "no kernel modeled yet");
    else
      std::fprintf(stderr, "asmevo-hip: hipEventElapsedTime: these are emulation times on the "
                           "host CPU, not GPU times\n");
  }
  *Ms = R.ModelTimes ? float((Stop->ModeledSeconds - Start->ModeledSeconds) * 1e3)
                     : float((Stop->HostSeconds - Start->HostSeconds) * 1e3);
  return hipSuccess;
}

} // extern "C"
