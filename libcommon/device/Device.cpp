// Choosing a backend of the device interface by name.
#include "device/Device.h"

#include "support/Error.h"

namespace asmevo::device {

llvm::Expected<std::unique_ptr<Device>> openDevice(const std::string &Backend,
                                                   const std::string &Processor) {
  if (Backend == "emu")
    return createEmuDevice(Processor);
  if (Backend == "hip")
    return openHipDevice(Processor);
  if (Backend == "auto") {
    auto Hip = openHipDevice(Processor);
    if (Hip)
      return std::move(*Hip);
    // No usable GPU of this processor (no runtime, no device, another architecture, or a
    // runtime failure while looking): the emulator. The caller sees which in info().Backend.
    llvm::consumeError(Hip.takeError());
    return createEmuDevice(Processor);
  }
  return makeError("unknown backend '" + Backend + "' (emu, hip or auto)");
}

} // namespace asmevo::device
