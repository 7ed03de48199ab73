// Reading the per-target timing parameter files (format "asmevo-timing-params" v1, described in
// TargetParams.h): every figure present, a number with a unit and a source, nothing unknown; and
// where loadTargetParams finds them (the environment, the installed share/, the source tree).
#include "timing/TargetParams.h"

#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace asmevo::timing {

namespace {

constexpr const char *kFormat = "asmevo-timing-params";
constexpr int64_t kFormatVersion = 1;

// Figures the model divides by or sizes a structure with: 0 there is a broken file, not a
// device without the feature (only the Infinity Cache may be absent, mall_bytes = 0).
const std::set<std::string> kPositive = {"compute_units",
                                         "clock_mhz",
                                         "l2_instances",
                                         "simds_per_cu",
                                         "wave_slots_per_simd",
                                         "vgprs_per_simd_lane",
                                         "vgpr_granule",
                                         "sgprs_per_simd",
                                         "sgpr_granule",
                                         "lds_bytes_per_cu",
                                         "lds_banks",
                                         "lds_bytes_per_clk",
                                         "l1_bytes",
                                         "l1_line_bytes",
                                         "l1_ways",
                                         "l1_bytes_per_clk",
                                         "l2_bytes",
                                         "l2_line_bytes",
                                         "l2_ways",
                                         "l2_bytes_per_clk",
                                         "hbm_bytes_per_clk",
                                         "hbm_efficiency",
                                         "scalar_cache_bytes",
                                         "scalar_cache_line_bytes"};

const std::set<std::string> kTopKeys = {"format", "format_version", "target",
                                        "device", "figures",        "comment"};

llvm::Error inFile(const std::string &Path, const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), Path);
}

llvm::Error figureError(const std::string &Path, const std::string &Name, const char *What) {
  return inFile(Path, "figure '" + Name + "' " + What);
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, ...": keep the
// part after the bracketed id.
std::string jsonReason(const nlohmann::json::exception &E) {
  std::string W = E.what();
  auto P = W.find("] ");
  return P == std::string::npos ? W : W.substr(P + 2);
}

// The .json files of Dir without the extension, sorted ("gfx90a, gfx942, gfx950").
std::vector<std::string> availableTargets(const std::string &Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".json")
      Names.push_back(llvm::sys::path::stem(It->path()).str());
  std::sort(Names.begin(), Names.end());
  return Names;
}

} // namespace

llvm::Expected<TargetParams> readTargetParams(const std::string &Path) {
  auto Buf = readFile(Path);
  if (!Buf)
    return Buf.takeError();
  llvm::StringRef Text = (*Buf)->getBuffer();
  nlohmann::json J;
  try {
    J = nlohmann::json::parse(Text.begin(), Text.end());
  } catch (const nlohmann::json::parse_error &E) {
    // E.byte counts from 1 and names the character the parser stopped at.
    uint64_t Offset = std::min<uint64_t>(E.byte ? E.byte - 1 : 0, Text.size());
    return fileError(Path, Offset, "not valid JSON: " + jsonReason(E));
  } catch (const nlohmann::json::exception &E) { // a number out of range, say
    return inFile(Path, "not valid JSON: " + jsonReason(E));
  }

  if (!J.is_object() || !J.contains("format") || J["format"] != kFormat)
    return inFile(Path, llvm::Twine("not a timing parameter file (format is not ") + kFormat + ")");
  for (auto It = J.begin(); It != J.end(); ++It)
    if (!kTopKeys.count(It.key()))
      return inFile(Path, "unknown key '" + It.key() +
                              "' (format, format_version, target, device, figures, comment)");
  if (!J.contains("format_version") || !J["format_version"].is_number_integer() ||
      J["format_version"].get<int64_t>() != kFormatVersion)
    return inFile(Path, "\"format_version\" is " +
                            (J.contains("format_version") ? J["format_version"].dump()
                                                          : std::string("missing")) +
                            "; this tool reads " + std::to_string(kFormatVersion));
  if (!J.contains("target") || !J["target"].is_string() || J["target"].get<std::string>().empty())
    return inFile(Path, "\"target\" must be a string (the processor, e.g. \"gfx942\")");
  if (J.contains("device") && !J["device"].is_string())
    return inFile(Path, "\"device\" must be a string");
  if (!J.contains("figures") || !J["figures"].is_object())
    return inFile(Path, "\"figures\" must be an object");

  const nlohmann::json &Figs = J["figures"];
  // Unknown names first: a misspelt figure is also a missing one, and its name is the clue.
  const std::set<std::string> Known(kFigureNames.begin(), kFigureNames.end());
  for (auto It = Figs.begin(); It != Figs.end(); ++It)
    if (!Known.count(It.key()))
      return inFile(Path, "unknown figure '" + It.key() + "'");

  TargetParams P;
  P.Target = J["target"].get<std::string>();
  P.Device = J.contains("device") ? J["device"].get<std::string>() : std::string();
  P.Path = Path;
  P.Sha256 = sha256Hex(Text);
  for (const std::string &Name : kFigureNames) {
    if (!Figs.contains(Name))
      return figureError(Path, Name, "is missing");
    const nlohmann::json &F = Figs[Name];
    if (!F.is_object())
      return figureError(Path, Name, "must be an object with \"value\", \"unit\" and \"source\"");
    if (!F.contains("value") || !F["value"].is_number() || !std::isfinite(F["value"].get<double>()))
      return figureError(Path, Name, "is not a number");
    double V = F["value"].get<double>();
    if (V < 0)
      return figureError(Path, Name, "must not be negative");
    if (V == 0 && kPositive.count(Name))
      return figureError(Path, Name, "must be more than 0");
    if (Name == "hbm_efficiency" && V > 1)
      return figureError(Path, Name, "must be at most 1 (a fraction of the peak)");
    if (!F.contains("unit") || !F["unit"].is_string())
      return figureError(Path, Name, "has no unit");
    if (!F.contains("source") || !F["source"].is_string() || F["source"].get<std::string>().empty())
      return figureError(Path, Name, "has no source");
    P.Figures[Name] = Figure{V, F["unit"].get<std::string>(), F["source"].get<std::string>()};
  }
  // An Infinity Cache with no bandwidth would stall every miss forever.
  if (P["mall_bytes"] > 0 && P["mall_bytes_per_clk"] == 0)
    return figureError(Path, "mall_bytes_per_clk", "must be more than 0 (mall_bytes is not 0)");
  return P;
}

std::string targetParamsDir() {
  if (const char *Env = std::getenv("ASMEVO_TIMING_PARAMS_DIR"); Env && *Env)
    return Env;
  // The installed layout: <prefix>/bin/<tool> next to <prefix>/share/asmevo/timing.
  llvm::SmallString<256> Exe;
  if (!llvm::sys::fs::real_path("/proc/self/exe", Exe)) {
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(Dir, "..", "share", "asmevo", "timing");
    llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
    if (llvm::sys::fs::is_directory(Dir))
      return std::string(Dir);
  }
#ifdef ASMEVO_SHARE_DIR
  return std::string(ASMEVO_SHARE_DIR) + "/timing"; // the build tree's tools use the sources'
#else
  return "share/asmevo/timing";
#endif
}

llvm::Expected<TargetParams> loadTargetParams(const std::string &Processor) {
  const std::string Dir = targetParamsDir();
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, Processor + ".json");
  bool Plain = !Processor.empty() && Processor.find('/') == std::string::npos;
  if (!Plain || !llvm::sys::fs::is_regular_file(Path)) {
    std::vector<std::string> Have = availableTargets(Dir);
    std::string List;
    for (const std::string &N : Have)
      List += (List.empty() ? "" : ", ") + N;
    return makeError(
        "no timing parameters for " + Processor +
        (Have.empty() ? " (there are none in '" + Dir + "')" : " (there are: " + List + ")"));
  }
  auto P = readTargetParams(std::string(Path));
  if (P && P->Target != Processor)
    return inFile(std::string(Path),
                  "\"target\" is \"" + P->Target + "\", not \"" + Processor + "\"");
  return P;
}

} // namespace asmevo::timing
