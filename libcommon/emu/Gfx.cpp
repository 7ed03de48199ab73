// Target names (Gfx.h).
#include "emu/Gfx.h"

#include <cstring>

namespace asmevo::emu {

bool parseGfx(const char *p, Gfx &Out) {
  static const struct {
    const char *Name;
    Gfx G;
  } Names[] = {{"gfx90a", Gfx::Gfx90a},
               {"gfx940", Gfx::Gfx940},
               {"gfx941", Gfx::Gfx941},
               {"gfx942", Gfx::Gfx942},
               {"gfx950", Gfx::Gfx950}};
  for (const auto &N : Names)
    if (std::strcmp(p, N.Name) == 0) {
      Out = N.G;
      return true;
    }
  return false;
}

} // namespace asmevo::emu
