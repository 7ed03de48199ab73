// The one scalar encoder: a by-value kernel argument's value, as the launch spec's "value" or
// kernel-run's --arg text gives it, into the argument's bytes.
#pragma once

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::launch {

// Encode V as Size little-endian bytes of Type ("i32", "f16", ...; empty: an integer of Size
// bytes, or a float of Size bytes when V is a float or a string with '.', 'e', "inf" or "nan").
// V is a JSON number or a string: a number in C syntax ("3000", "-1", "0x10", "1.5e3", "nan")
// or "hex:" and 2*Size hex digits (raw bytes, any type). Errors say what is wrong with the value
// without naming the argument: the caller prefixes where it came from.
llvm::Expected<std::vector<uint8_t>> encodeScalar(const nlohmann::json &V, std::string Type,
                                                  uint32_t Size);

} // namespace asmevo::launch
