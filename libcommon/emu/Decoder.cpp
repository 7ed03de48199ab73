// Stub: to be implemented.
#include "emu/Decoder.h"

namespace asmevo::emu {

bool decodeInst(const uint8_t *Bytes, size_t Avail, Gfx Target, Inst &Out, std::string *Why) {
  if (Why)
    *Why = "decoder not implemented";
  return false;
}
std::string mnemonic(const Inst &In, Gfx Target) { return opName(In.op); }
std::string printInst(const Inst &In, Gfx Target, uint64_t Pc) { return mnemonic(In, Target); }

} // namespace asmevo::emu
