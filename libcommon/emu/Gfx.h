// The CDNA targets the emulator runs, and their names. The decoder, the register-use and hazard
// tables, the GPR-index mode and the executors all branch on it; it needs nothing else.
#pragma once

#include <cstdint>

namespace asmevo::emu {

enum class Gfx : uint8_t { Gfx90a, Gfx940, Gfx941, Gfx942, Gfx950 };
inline bool isGfx94Plus(Gfx g) { return g != Gfx::Gfx90a; }
// Parse "gfx90a", "gfx942", ... (false for targets the emulator does not run).
bool parseGfx(const char *Processor, Gfx &Out);

} // namespace asmevo::emu
