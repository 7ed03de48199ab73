// kernel-run's argument text, the second parser into a launch (the launch spec is the first):
// "--arg [NAME=]VALUE" per explicit argument, bound to the kernel's signature through the one
// binder (ArgBinding.h) and encoded by the one scalar encoder (ScalarValue.h).
//   pointers:  @FILE (a buffer holding the file), zeros:BYTES, null, addr:ADDRESS (an
//              existing allocation, for replays), or table:BUF+BUF+... (a pointer table: a
//              buffer of one 8-byte address per BUF, each BUF an @FILE or zeros:BYTES buffer;
//              entry I is named NAME[I])
//   by value:  [TYPE:]NUMBER, TYPE one of i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64
//              (untyped: an integer of the argument's size, or a float if it has '.', 'e',
//              "inf" or "nan"), or hex:BYTES for raw little-endian bytes.
#pragma once

#include "codeobj/KernelArgs.h"
#include "device/Device.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::launch {

struct ArgText {
  std::string Name; // metadata name, "#N" (N-th explicit argument) or "" (next in order)
  std::string Value;
};
llvm::Expected<ArgText> parseArgText(const std::string &Text);

// A buffer the launch allocates: its explicit argument and initial contents.
struct BufferArg {
  const KernelArg *Arg = nullptr;
  std::string Label;    // how messages name it
  uint64_t Size = 0;    // bytes
  std::string Contents; // @FILE's bytes ("" for zeros:)
  uint64_t Address = 0; // after placeBuffers
  int TableOf = -1;     // a pointer table's entry: the table's index in BoundArgs::Buffers
  unsigned Slot = 0;    // an entry: its index in the table
};

// Every explicit argument bound to a value: the kernarg bytes (pointers to buffers still 0) and
// the buffers to allocate. Input errors name the argument: a value given twice, an argument
// with none, a pointer given a number.
struct BoundArgs {
  std::vector<uint8_t> Kernarg;
  std::vector<BufferArg> Buffers;
  // The buffer of the argument named Name ("#N" or a metadata name; "NAME[I]": entry I of the
  // pointer table NAME), if this launch allocates it.
  const BufferArg *buffer(const KernelSignature &Sig, const std::string &Name) const;
};
llvm::Expected<BoundArgs> bindArgTexts(const KernelSignature &Sig, const std::string &Kernel,
                                       const std::vector<ArgText> &Args);

// Allocate and fill B's buffers on Dev and write their addresses into B.Kernarg.
llvm::Error placeBuffers(device::Device &Dev, BoundArgs &B);

} // namespace asmevo::launch
