// Reading the per-target timing parameter files (format "asmevo-timing-params" v2, described in
// TargetParams.h): every figure present, in its unit and its plausible range (FigureNames.cpp),
// with a source and the range of the model's uncertainty about it, nothing unknown; and where
// loadTargetParams finds them (the environment, the installed share/, the source tree).
#include "timing/TargetParams.h"

#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace asmevo::timing {

namespace {

constexpr const char *kFormat = "asmevo-timing-params";
constexpr int64_t kFormatVersion = 2;

const std::set<std::string> kTopKeys = {"format", "format_version", "target",
                                        "device", "figures",        "comment"};

llvm::Error inFile(const std::string &Path, const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), Path);
}

llvm::Error figureError(const std::string &Path, const std::string &Name, const llvm::Twine &What) {
  return inFile(Path, "figure '" + Name + "' " + What);
}

// A bound or a value as a person writes it: 1024, 0.01, 1e+07, 17179869184.
std::string numberText(double V) {
  char B[40];
  if (V == std::floor(V) && std::fabs(V) < 1e15)
    std::snprintf(B, sizeof B, "%.0f", V);
  else
    std::snprintf(B, sizeof B, "%.6g", V);
  return B;
}

// A JSON value as a message quotes it, cut short: a number as a person writes it (1e+12, not
// 1000000000000.0), anything else as the file has it.
std::string valueText(const nlohmann::json &V) {
  if (V.is_number_float()) {
    char B[40];
    std::snprintf(B, sizeof B, "%.15g", V.get<double>());
    return B;
  }
  std::string T = V.dump(-1, ' ', /*ensure_ascii=*/true);
  return T.size() > 40 ? T.substr(0, 37) + "..." : T;
}

// "a whole number from 1 to 1024 (count)"
std::string rangeText(const FigureDef &D) {
  const char *Kind = D.Kind == FigureKind::Whole        ? "a whole number"
                     : D.Kind == FigureKind::PowerOfTwo ? "a power of two"
                                                        : "a number";
  return std::string(Kind) + " from " + numberText(D.Min) + " to " + numberText(D.Max) + " (" +
         D.Unit + ")";
}

// The figure Name of Figs, checked against its definition.
llvm::Expected<Figure> readFigure(const std::string &Path, const FigureDef &D,
                                  const nlohmann::json &Figs) {
  const std::string Name = D.Name;
  if (!Figs.contains(Name))
    return figureError(Path, Name, "is missing");
  const nlohmann::json &F = Figs[Name];
  if (!F.is_object())
    return figureError(Path, Name, "must be an object with \"value\", \"unit\" and \"source\"");
  for (auto It = F.begin(); It != F.end(); ++It)
    if (It.key() != "value" && It.key() != "unit" && It.key() != "source" && It.key() != "range" &&
        It.key() != "range_source")
      return figureError(Path, Name,
                         "has an unknown key '" + It.key() +
                             "' (value, unit, source, range, range_source)");
  if (!F.contains("value"))
    return figureError(Path, Name, "has no value");
  const nlohmann::json &JV = F["value"];
  // A JSON number is finite (the parser refuses NaN, infinities and overflowing exponents).
  if (!JV.is_number())
    return figureError(Path, Name, "is " + valueText(JV) + "; it must be " + rangeText(D));
  // The unit first: a figure in another unit is also out of range, and the unit says why.
  if (!F.contains("unit") || !F["unit"].is_string())
    return figureError(Path, Name, "has no unit (it is in \"" + std::string(D.Unit) + "\")");
  std::string Unit = F["unit"].get<std::string>();
  if (Unit != D.Unit)
    return figureError(Path, Name,
                       "is in " + valueText(F["unit"]) + "; it must be in \"" + D.Unit + "\"");
  double V = JV.get<double>();
  if (!std::isfinite(V) || V < D.Min || V > D.Max ||
      (D.Kind != FigureKind::Real && V != std::floor(V)) ||
      (D.Kind == FigureKind::PowerOfTwo && !llvm::isPowerOf2_64(uint64_t(V))))
    return figureError(Path, Name, "is " + valueText(JV) + "; it must be " + rangeText(D));
  if (!F.contains("source") || !F["source"].is_string() || F["source"].get<std::string>().empty())
    return figureError(Path, Name, "has no source");
  Figure Out{V, Unit, F["source"].get<std::string>()};
  // The range's form here; whether it holds the value, after the figures are checked together
  // (checkRange), so that a value edited alone is named for what it disagrees with first.
  if (!F.contains("range"))
    return figureError(Path, Name, "has no range (\"range\": [low, high])");
  const nlohmann::json &JR = F["range"];
  if (!JR.is_array() || JR.size() != 2 || !JR[0].is_number() || !JR[1].is_number())
    return figureError(Path, Name,
                       "has range " + valueText(JR) + "; it must be [low, high], two numbers");
  Out.Low = JR[0].get<double>();
  Out.High = JR[1].get<double>();
  if (!F.contains("range_source") || !F["range_source"].is_string() ||
      F["range_source"].get<std::string>().empty())
    return figureError(Path, Name, "has no range_source");
  Out.RangeSource = F["range_source"].get<std::string>();
  return Out;
}

// "[213, 254]"
std::string rangeText(double Low, double High) {
  return "[" + numberText(Low) + ", " + numberText(High) + "]";
}

// Figure F (defined by D) against its range: the range well formed, within the plausible one,
// holding the value, zero-width where D must be exact, and labelled.
llvm::Error checkRange(const std::string &Path, const FigureDef &D, const Figure &F) {
  const std::string Name = D.Name;
  const std::string R = rangeText(F.Low, F.High);
  if (F.Low > F.High)
    return figureError(Path, Name, "has range " + R + ": its low is more than its high");
  if (F.Low < D.Min || F.High > D.Max)
    return figureError(Path, Name,
                       "has range " + R + "; it must lie within " + numberText(D.Min) + " to " +
                           numberText(D.Max) + " (" + D.Unit + ")");
  if (F.Value < F.Low || F.Value > F.High)
    return figureError(Path, Name, "is " + numberText(F.Value) + ", outside its range " + R);
  if (mustBeExact(D) && !F.exact())
    return figureError(Path, Name,
                       "has range " + R + "; it must be exact (" + rangeText(F.Value, F.Value) +
                           "): a count or size is held fixed, since the model's occupancy, "
                           "sampling and cache shapes depend on it");
  llvm::StringRef S(F.RangeSource);
  bool Exact = S.starts_with("exact:");
  if (!Exact && !S.starts_with("sources:") && !S.starts_with("assumed:"))
    return figureError(Path, Name,
                       "has range_source " + valueText(nlohmann::json(F.RangeSource)) +
                           "; it must start with \"exact:\", \"sources:\" or \"assumed:\"");
  if (Exact && !F.exact())
    return figureError(Path, Name, "has range " + R + ", but its range_source says it is exact");
  return llvm::Error::success();
}

// A cache of Bytes with lines of Line bytes and Ways ways must hold one line per way at least
// (the model would otherwise give it a whole set).
llvm::Error checkCacheShape(const std::string &Path, const TargetParams &P, const char *Bytes,
                            const char *Line, const std::string &Ways, unsigned FixedWays = 0) {
  double B = P[Bytes], L = P[Line], W = FixedWays ? FixedWays : P[Ways];
  if (B == 0 || B >= L * W)
    return llvm::Error::success();
  std::string Why =
      FixedWays ? std::string(Line) + " " + numberText(L) + " x " + std::to_string(FixedWays) +
                      " ways (the model's)"
                : std::string(Line) + " " + numberText(L) + " x " + Ways + " " + numberText(W);
  return figureError(Path, Bytes,
                     "is " + numberText(B) + ", less than one line per way (" + Why + " = " +
                         numberText(L * W) + ")");
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, ...": keep the
// part after the bracketed id.
// Bytes that are not printable ASCII (nlohmann quotes what it last read, whatever it was) are
// written as \xNN.
std::string jsonReason(const nlohmann::json::exception &E) {
  std::string W = E.what();
  auto P = W.find("] ");
  std::string Out;
  for (unsigned char C : P == std::string::npos ? W : W.substr(P + 2))
    Out += C >= 0x20 && C < 0x7f ? std::string(1, char(C)) : "\\x" + llvm::utohexstr(C, false, 2);
  return Out;
}

// Whether Name could be a processor's parameter file's ("gfx942"; not "agreement", the model
// agreement file that lies beside them, ModelAgreement.h).
bool isProcessorName(llvm::StringRef Name) {
  return Name.starts_with("gfx") && Name.find('/') == llvm::StringRef::npos;
}

// The gfx*.json files of Dir without the extension, sorted ("gfx90a, gfx942, gfx950").
std::vector<std::string> availableTargets(const std::string &Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".json" &&
        isProcessorName(llvm::sys::path::stem(It->path())))
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
      J["format_version"].get<int64_t>() != kFormatVersion) {
    bool V1 = J.contains("format_version") && J["format_version"] == 1;
    return inFile(Path, "\"format_version\" is " +
                            (J.contains("format_version") ? J["format_version"].dump()
                                                          : std::string("missing")) +
                            "; this tool reads " + std::to_string(kFormatVersion) +
                            (V1 ? " (version 1 gives no ranges: add \"range\" and "
                                  "\"range_source\" to every figure, as "
                                  "share/asmevo/timing/README.md says)"
                                : ""));
  }
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
  for (const FigureDef &D : kFigures) {
    auto F = readFigure(Path, D, Figs);
    if (!F)
      return F.takeError();
    P.Figures[D.Name] = std::move(*F);
  }
  // Figures that must agree with each other.
  if (P["l2_instances"] > P.computeUnits())
    return figureError(Path, "l2_instances",
                       "is " + numberText(P["l2_instances"]) + ", more than compute_units (" +
                           numberText(P.computeUnits()) + ")");
  if (llvm::Error E = checkCacheShape(Path, P, "l1_bytes", "l1_line_bytes", "l1_ways"))
    return std::move(E);
  if (llvm::Error E = checkCacheShape(Path, P, "l2_bytes", "l2_line_bytes", "l2_ways"))
    return std::move(E);
  if (llvm::Error E =
          checkCacheShape(Path, P, "scalar_cache_bytes", "scalar_cache_line_bytes", "", 4))
    return std::move(E);
  if (llvm::Error E = checkCacheShape(Path, P, "mall_bytes", "l2_line_bytes", "", 16))
    return std::move(E);
  // The clock under MFMA load is the boost clock or lower (Model.h: the clock model).
  if (P["mfma_clock_mhz"] > P.clockMHz())
    return figureError(Path, "mfma_clock_mhz",
                       "is " + numberText(P["mfma_clock_mhz"]) + ", more than clock_mhz (" +
                           numberText(P.clockMHz()) + ")");
  // An Infinity Cache with no bandwidth would stall every miss forever.
  if (P["mall_bytes"] > 0 && P["mall_bytes_per_clk"] == 0)
    return figureError(Path, "mall_bytes_per_clk", "must be more than 0 (mall_bytes is not 0)");
  for (const FigureDef &D : kFigures)
    if (llvm::Error E = checkRange(Path, D, P.Figures.at(D.Name)))
      return std::move(E);
  // Nor may a parameter set drawn from the ranges have one (Ensemble.h).
  if (const Figure &M = P.Figures.at("mall_bytes_per_clk"); P["mall_bytes"] > 0 && M.Low == 0)
    return figureError(Path, "mall_bytes_per_clk",
                       "has range " + rangeText(M.Low, M.High) +
                           ": its low must be more than 0 (mall_bytes is not 0)");
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
  bool Plain = isProcessorName(Processor);
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
