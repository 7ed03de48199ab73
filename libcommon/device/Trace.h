// How a timing model sees a launch through the device interface: the backend (emu) records the
// workgroups a TraceSink wants, wave by wave, and hands each one over when it has finished. The
// record is the emulator's plain trace data (emu/Trace.h), passed on unchanged; nothing else
// of the emulator is visible here.
#pragma once

#include "emu/Trace.h"

#include <cstdint>

namespace asmevo::device {

using GroupSubset = emu::GroupSubset;
using TraceSpace = emu::TraceSpace;
using TraceAccess = emu::TraceAccess;
using TraceStep = emu::TraceStep;
using WaveTrace = emu::WaveTrace;
using WorkgroupTrace = emu::WorkgroupTrace;

class TraceSink {
public:
  virtual ~TraceSink();
  // Whether workgroup Group (linear id) is to be recorded. Called from the backend's threads.
  virtual bool wants(uint64_t Group) const = 0;
  // A recorded workgroup, once all its waves have ended. Called from the backend's threads,
  // in no particular order: the sink synchronises.
  virtual void take(WorkgroupTrace &&T) = 0;
};

} // namespace asmevo::device
