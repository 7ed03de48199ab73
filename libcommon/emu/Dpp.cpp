#include "emu/Dpp.h"

namespace asmevo::emu {

namespace {

// Source lane of every lane for each control, computed once (Dpp.h has the definitions).
struct DppTable {
  int8_t Src[kDppControls][64];
  bool Defined[kDppControls];
  uint64_t HasSrc[kDppControls];
  DppTable() {
    for (unsigned Ctrl = 0; Ctrl < kDppControls; ++Ctrl) {
      Defined[Ctrl] = true;
      HasSrc[Ctrl] = 0;
      for (int L = 0; L < 64; ++L) {
        const int Row = L & ~15, InRow = L & 15, N = int(Ctrl & 15);
        int S = -1;
        if (Ctrl <= 0xff)
          S = (L & ~3) | int((Ctrl >> (2 * (L & 3))) & 3);
        else if (Ctrl >= 0x101 && Ctrl <= 0x10f)
          S = InRow + N < 16 ? L + N : -1;
        else if (Ctrl >= 0x111 && Ctrl <= 0x11f)
          S = InRow - N >= 0 ? L - N : -1;
        else if (Ctrl >= 0x121 && Ctrl <= 0x12f)
          S = Row | ((InRow - N) & 15);
        else if (Ctrl == 0x130)
          S = L + 1 < 64 ? L + 1 : -1;
        else if (Ctrl == 0x134)
          S = (L + 1) & 63;
        else if (Ctrl == 0x138)
          S = L - 1;
        else if (Ctrl == 0x13c)
          S = (L - 1) & 63;
        else if (Ctrl == 0x140)
          S = Row | (15 - InRow);
        else if (Ctrl == 0x141)
          S = (L & ~7) | (7 - (L & 7));
        else if (Ctrl == 0x142)
          S = Row >= 16 ? Row - 1 : -1;
        else if (Ctrl == 0x143)
          S = Row >= 32 ? 31 : -1;
        else if (isRowNewBcast(Ctrl))
          S = Row | N;
        else
          Defined[Ctrl] = false;
        Src[Ctrl][L] = int8_t(S);
        HasSrc[Ctrl] |= uint64_t(S >= 0) << L;
      }
    }
  }
};

const DppTable &table() {
  static const DppTable T;
  return T;
}

} // namespace

bool dppControlDefined(unsigned Ctrl, Gfx) { return Ctrl < kDppControls && table().Defined[Ctrl]; }

const int8_t *dppSourceLanes(unsigned Ctrl) {
  return Ctrl < kDppControls && table().Defined[Ctrl] ? table().Src[Ctrl] : nullptr;
}

uint64_t dppLanesWithSource(unsigned Ctrl) {
  return Ctrl < kDppControls ? table().HasSrc[Ctrl] : 0;
}

} // namespace asmevo::emu
