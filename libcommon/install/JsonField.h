// Reading the fields of a manifest or a run's summary without exceptions: a key's string or
// integer value, or "" / -1 when it has none of that type.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace asmevo::install {

inline std::string textOf(const nlohmann::json &J, const char *Key) {
  return J.contains(Key) && J[Key].is_string() ? J[Key].get<std::string>() : "";
}

inline int intOf(const nlohmann::json &J, const char *Key) {
  return J.contains(Key) && J[Key].is_number_integer() ? J[Key].get<int>() : -1;
}

} // namespace asmevo::install
