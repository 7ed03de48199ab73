// Edits (search/Edit.h): parsing one from JSON, its window, its validation and applying it.
#include "search/Edit.h"

#include "support/FileIO.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <set>

namespace asmevo::search {

const char *editFaultName(EditFault F) {
  switch (F) {
  case EditFault::Malformed:
    return "malformed";
  case EditFault::OffWindow:
    return "off-window";
  case EditFault::TooLarge:
    return "too-large";
  case EditFault::Refused:
    return "refused";
  }
  return "malformed";
}

namespace {

bool fault(EditError &Err, EditFault F, std::string M) {
  Err = EditError{F, std::move(M)};
  return false;
}

bool getString(const nlohmann::json &J, const char *Key, std::string &Out, bool Required,
               const std::string &Source, EditError &Err) {
  auto It = J.find(Key);
  if (It == J.end())
    return !Required ||
           fault(Err, EditFault::Malformed, Source + ": the edit has no \"" + Key + "\"");
  if (!It->is_string())
    return fault(Err, EditFault::Malformed,
                 Source + ": \"" + Key + "\" must be a string, not " + It->type_name());
  Out = It->get<std::string>();
  return true;
}

bool getLine(const nlohmann::json &W, const char *Key, unsigned &Out, const std::string &Source,
             EditError &Err) {
  auto It = W.find(Key);
  if (It == W.end() || !It->is_number_unsigned() || It->get<uint64_t>() == 0 ||
      It->get<uint64_t>() > 100000000)
    return fault(Err, EditFault::Malformed,
                 Source + ": window \"" + Key + "\" must be a line number (1 or more)");
  Out = It->get<unsigned>();
  return true;
}

} // namespace

std::optional<Edit> parseEdit(const nlohmann::json &J, const std::string &Source, EditError &Err) {
  if (!J.is_object())
    return fault(Err, EditFault::Malformed,
                 Source + ": an edit must be a JSON object, not " + std::string(J.type_name())),
           std::nullopt;
  static const char *Known[] = {"format",    "format_version",  "window",   "replacement",
                                "rationale", "expected_effect", "original", "direction"};
  for (auto It = J.begin(); It != J.end(); ++It)
    if (std::find_if(std::begin(Known), std::end(Known),
                     [&](const char *K) { return It.key() == K; }) == std::end(Known))
      return fault(Err, EditFault::Malformed, Source + ": unknown key \"" + It.key() + "\""),
             std::nullopt;
  if (J.contains("format") && J["format"] != "asmevo-edit")
    return fault(Err, EditFault::Malformed, Source + ": \"format\" must be \"asmevo-edit\""),
           std::nullopt;
  // An edit of a later format may mean something this build would apply differently.
  if (auto V = J.find("format_version"); V != J.end() && *V != 1)
    return fault(Err, EditFault::Malformed,
                 Source + ": \"format_version\" is " + V->dump() +
                     "; this build reads asmevo-edit version 1"),
           std::nullopt;
  Edit E;
  auto W = J.find("window");
  if (W == J.end() || !W->is_object())
    return fault(Err, EditFault::Malformed, Source + ": the edit has no \"window\" object"),
           std::nullopt;
  if (!getString(*W, "function", E.W.Function, true, Source, Err))
    return std::nullopt;
  int Forms = W->contains("first_line") + W->contains("offsets") + W->contains("label");
  if (Forms != 1)
    return fault(Err, EditFault::Malformed,
                 Source + ": the window needs exactly one of \"first_line\"/\"last_line\", "
                          "\"offsets\" or \"label\""),
           std::nullopt;
  for (auto It = W->begin(); It != W->end(); ++It)
    if (It.key() != "function" && It.key() != "first_line" && It.key() != "last_line" &&
        It.key() != "offsets" && It.key() != "label")
      return fault(Err, EditFault::Malformed, Source + ": unknown window key \"" + It.key() + "\""),
             std::nullopt;
  if (W->contains("first_line")) {
    if (!getLine(*W, "first_line", E.W.FirstLine, Source, Err) ||
        !getLine(*W, "last_line", E.W.LastLine, Source, Err))
      return std::nullopt;
    if (E.W.LastLine < E.W.FirstLine)
      return fault(Err, EditFault::Malformed, Source + ": window last_line is before first_line"),
             std::nullopt;
  } else if (W->contains("offsets")) {
    const auto &O = (*W)["offsets"];
    if (!O.is_array() || O.size() != 2 || !O[0].is_number_unsigned() ||
        !O[1].is_number_unsigned() || O[1].get<uint64_t>() <= O[0].get<uint64_t>())
      return fault(Err, EditFault::Malformed,
                   Source + ": window \"offsets\" must be [begin, end] with begin < end"),
             std::nullopt;
    E.W.Offsets = {O[0].get<uint64_t>(), O[1].get<uint64_t>()};
  } else if (!getString(*W, "label", E.W.Label, true, Source, Err)) {
    return std::nullopt;
  }
  if (!getString(J, "replacement", E.Replacement, true, Source, Err) ||
      !getString(J, "rationale", E.Rationale, false, Source, Err) ||
      !getString(J, "expected_effect", E.ExpectedEffect, false, Source, Err) ||
      !getString(J, "original", E.Original, false, Source, Err) ||
      !getString(J, "direction", E.Direction, false, Source, Err))
    return std::nullopt;
  return E;
}

nlohmann::json editJson(const Edit &E) {
  nlohmann::json W = {{"function", E.W.Function}};
  if (E.W.FirstLine) {
    W["first_line"] = E.W.FirstLine;
    W["last_line"] = E.W.LastLine;
  } else if (E.W.Offsets) {
    W["offsets"] = {E.W.Offsets->first, E.W.Offsets->second};
  } else {
    W["label"] = E.W.Label;
  }
  nlohmann::json J = {{"format", "asmevo-edit"},
                      {"format_version", 1},
                      {"window", W},
                      {"replacement", E.Replacement}};
  if (!E.Rationale.empty())
    J["rationale"] = E.Rationale;
  if (!E.ExpectedEffect.empty())
    J["expected_effect"] = E.ExpectedEffect;
  if (!E.Original.empty())
    J["original"] = E.Original;
  if (!E.Direction.empty())
    J["direction"] = E.Direction;
  return J;
}

std::optional<LineRange> resolveWindow(const Window &W, const KernelLines &Map, EditError &Err) {
  auto Off = [&](std::string M) {
    fault(Err, EditFault::OffWindow, std::move(M));
    return std::nullopt;
  };
  // The function's body: after its label, through its last code line.
  size_t BodyFirst = Map.FirstEditable, BodyLast = Map.End ? Map.End - 1 : 0;
  std::string Label = llvm::StringRef(Map.Lines[Map.Label]).trim().drop_back().str();
  if (W.Function != Label && "\"" + W.Function + "\"" != Label)
    return Off("window function '" + W.Function + "' is not the kernel being searched ('" + Label +
               "')");
  if (W.FirstLine) {
    size_t F = W.FirstLine - 1, L = W.LastLine - 1;
    if (F < BodyFirst || L > BodyLast)
      return Off("window lines " + std::to_string(W.FirstLine) + "-" + std::to_string(W.LastLine) +
                 " are outside function '" + W.Function + "' (lines " +
                 std::to_string(BodyFirst + 1) + "-" + std::to_string(BodyLast + 1) +
                 (BodyFirst > Map.Label + 1 ? "; before them the kernarg-preload prologue, which "
                                              "must stay 256 bytes long"
                                            : "") +
                 ")");
    return LineRange{F, L};
  }
  if (W.Offsets) {
    auto [B, E] = *W.Offsets;
    std::optional<size_t> F, L;
    for (const CodeLine &C : Map.Code) {
      if (C.Line < BodyFirst)
        continue;
      if (C.Offset == B)
        F = C.Line;
      if (C.Offset + C.Size == E)
        L = C.Line;
    }
    if (!F || !L || *L < *F)
      return Off("window offsets [" + std::to_string(B) + ", " + std::to_string(E) +
                 ") are not on instruction boundaries of function '" + W.Function + "'");
    return LineRange{*F, *L};
  }
  for (size_t I = BodyFirst; I <= BodyLast && I < Map.Lines.size(); ++I) {
    if (llvm::StringRef(Map.Lines[I]).trim() != W.Label + ":")
      continue;
    size_t J = I + 1;
    while (J <= BodyLast && !llvm::StringRef(Map.Lines[J]).trim().ends_with(":"))
      ++J;
    if (J == I + 1)
      return Off("window label '" + W.Label + "' starts an empty block");
    return LineRange{I + 1, J - 1};
  }
  return Off("window label '" + W.Label + "' is not in function '" + W.Function + "'");
}

namespace {

// Replacement lines: instructions, local labels, comments and raw words only.
bool checkReplacement(const std::string &Text, const EditLimits &L, EditError &Err, size_t &Count) {
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Text).split(Lines, '\n');
  Count = Text.empty() ? 0 : Lines.size();
  if (Count > L.MaxReplacementLines)
    return fault(Err, EditFault::TooLarge,
                 "the replacement has " + std::to_string(Count) + " lines (at most " +
                     std::to_string(L.MaxReplacementLines) + ")");
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef T = Lines[I].split(';').first.split("//").first.trim();
    if (T.empty())
      continue;
    if (T.ends_with(":")) {
      if (!T.starts_with(".L"))
        return fault(Err, EditFault::Refused,
                     "replacement line " + std::to_string(I + 1) + ": label '" + T.str() +
                         "' is not local (.L...)");
      continue;
    }
    if (T.starts_with(".") && !T.starts_with(".long"))
      return fault(Err, EditFault::Refused,
                   "replacement line " + std::to_string(I + 1) + ": directive '" +
                       T.split(' ').first.split('\t').first.str() +
                       "' is not allowed in a replacement (instructions, local labels, "
                       "comments and .long only)");
    if (T.contains('\\') || T.contains('"'))
      return fault(Err, EditFault::Refused,
                   "replacement line " + std::to_string(I + 1) + ": '" + T.str() +
                       "' is not an instruction");
  }
  return true;
}

// The code of Lines (comments and blank lines dropped) as words, one list per line; with
// DropPolicy, without the cache-policy modifiers.
std::vector<std::vector<std::string>> codeWords(llvm::ArrayRef<std::string> Lines,
                                                bool DropPolicy) {
  static const std::set<llvm::StringRef> Policy = {"sc0", "sc1", "nt", "glc", "slc", "scc"};
  std::vector<std::vector<std::string>> Out;
  for (const std::string &L : Lines) {
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(L).split(';').first.split("//").first.split(Parts, ' ', -1, false);
    std::vector<std::string> W;
    for (llvm::StringRef P : Parts)
      for (llvm::StringRef Q : llvm::split(P, ','))
        if (Q = Q.trim(" \t"); !Q.empty() && !(DropPolicy && W.size() && Policy.count(Q)))
          W.push_back(Q.str());
    if (!W.empty())
      Out.push_back(std::move(W));
  }
  return Out;
}

// Whether Replacement is Window with only cache-policy bits set or cleared.
bool onlyCachePolicy(llvm::ArrayRef<std::string> Window, const std::string &Replacement) {
  llvm::SmallVector<llvm::StringRef> R;
  llvm::StringRef(Replacement).split(R, '\n');
  std::vector<std::string> Rep(R.begin(), R.end());
  return codeWords(Window, false) != codeWords(Rep, false) &&
         codeWords(Window, true) == codeWords(Rep, true);
}

} // namespace

std::optional<std::string> applyEdits(const KernelLines &Map, const std::vector<Edit> &Edits,
                                      const EditLimits &L, EditError &Err,
                                      std::vector<LineRange> *Ranges) {
  std::vector<std::pair<LineRange, const Edit *>> Rs;
  for (const Edit &E : Edits) {
    auto R = resolveWindow(E.W, Map, Err);
    if (!R)
      return std::nullopt;
    if (R->Last - R->First + 1 > L.MaxWindowLines)
      return fault(Err, EditFault::TooLarge,
                   "the window has " + std::to_string(R->Last - R->First + 1) + " lines (at most " +
                       std::to_string(L.MaxWindowLines) + ")"),
             std::nullopt;
    if (!E.Original.empty()) {
      std::string Seen;
      for (size_t I = R->First; I <= R->Last; ++I)
        Seen += Map.Lines[I] + (I < R->Last ? "\n" : "");
      if (llvm::StringRef(Seen).trim() != llvm::StringRef(E.Original).trim())
        return fault(Err, EditFault::OffWindow,
                     "the window's text is not the edit's \"original\" (lines " +
                         std::to_string(R->First + 1) + "-" + std::to_string(R->Last + 1) + ")"),
               std::nullopt;
    }
    size_t N = 0;
    if (!checkReplacement(E.Replacement, L, Err, N))
      return std::nullopt;
    if (onlyCachePolicy(
            llvm::ArrayRef<std::string>(Map.Lines).slice(R->First, R->Last - R->First + 1),
            E.Replacement))
      return fault(Err, EditFault::Refused,
                   "the edit only sets or clears cache-policy bits (sc0, sc1, nt; glc, slc, scc): "
                   "the timing model cannot price them past the L1, and scope bits change "
                   "coherence, which the emulator does not check"),
             std::nullopt;
    Rs.push_back({*R, &E});
  }
  std::sort(Rs.begin(), Rs.end(),
            [](const auto &A, const auto &B) { return A.first.First < B.first.First; });
  for (size_t I = 1; I < Rs.size(); ++I)
    if (Rs[I].first.First <= Rs[I - 1].first.Last)
      return fault(Err, EditFault::OffWindow, "the edits' windows overlap"), std::nullopt;
  if (Ranges)
    for (const auto &R : Rs)
      Ranges->push_back(R.first);
  std::string Out;
  size_t K = 0;
  for (size_t I = 0; I < Map.Lines.size();) {
    if (K < Rs.size() && I == Rs[K].first.First) {
      const std::string &Rep = Rs[K].second->Replacement;
      if (!Rep.empty())
        Out += Rep + (Rep.back() == '\n' ? "" : "\n");
      I = Rs[K].first.Last + 1;
      ++K;
      continue;
    }
    Out += Map.Lines[I];
    if (I + 1 < Map.Lines.size())
      Out += "\n";
    ++I;
  }
  return Out;
}

std::string candidateHash(const std::string &Text) {
  std::string Norm;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Text).split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    llvm::StringRef T = L.split(';').first.split("//").first.trim();
    if (T.empty())
      continue;
    Norm += T.str();
    Norm += '\n';
  }
  return sha256Hex(Norm);
}

} // namespace asmevo::search
