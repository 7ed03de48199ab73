// Choosing a backend of the device interface by name.
#include "device/Device.h"
#include "device/Trace.h"

#include "support/Error.h"

namespace asmevo::device {

TraceSink::~TraceSink() = default;

llvm::Error Device::place(std::vector<Placement> &Ps) {
  for (Placement &P : Ps) {
    if (llvm::Error E = allocAt(P.Want, P.Size, P.Name))
      return E;
    P.Got = P.Want;
  }
  return llvm::Error::success();
}

llvm::Error Device::flushCaches(uint64_t) {
  return makeError("the " + info().Backend +
                   " backend has no caches to flush (--flush-cache needs a GPU: --backend hip)");
}

llvm::Expected<std::unique_ptr<Device>> openDevice(const std::string &Backend,
                                                   const std::string &Processor) {
  if (Backend == "emu")
    return createEmuDevice(Processor);
  if (Backend == "hip")
    return openHipDevice(Processor);
  if (Backend == "auto") {
    auto Hip = openHipDevice(Processor);
    // A GPU, not AsmEvo's emulated runtime found under the runtime's name (libasmevo-hip
    // through LD_LIBRARY_PATH): that one is the emulator with fewer checks.
    if (Hip && (*Hip)->info().Hardware)
      return std::move(*Hip);
    if (Hip)
      Hip->reset();
    // No usable GPU of this processor (no runtime, no device, another architecture, or a
    // runtime failure while looking): the emulator. The caller sees which in info().Backend.
    llvm::consumeError(Hip.takeError());
    return createEmuDevice(Processor);
  }
  return makeError("unknown backend '" + Backend + "' (emu, hip or auto)");
}

} // namespace asmevo::device
