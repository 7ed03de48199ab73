// A line diff of two assembly texts as unified-diff hunks (the parent's text against a
// commit's), for the report. The common head and tail are cut first (an edit touches a window),
// and the rest is matched by a longest common subsequence; a middle too large for that (more
// than MaxCells line pairs) is shown as all of its old lines removed and all new ones added.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>
#include <vector>

namespace asmevo::report {

struct DiffLine {
  char Kind = ' ';             // ' ' context, '-' only in the old text, '+' only in the new
  std::string Text;            // without its end of line
  size_t OldNo = 0, NewNo = 0; // 1-based line numbers (0: not in that text)
};

struct DiffHunk {
  size_t OldStart = 0, OldCount = 0, NewStart = 0, NewCount = 0; // as "@@ -a,b +c,d @@" says
  std::vector<DiffLine> Lines;
};

// The lines of a text (a last line without an end of line counts; "" has none).
std::vector<std::string> splitLines(llvm::StringRef Text);

// The hunks turning Old into New with Context lines of context; none when they are equal.
std::vector<DiffHunk> diffTexts(llvm::StringRef Old, llvm::StringRef New, unsigned Context = 3,
                                size_t MaxCells = size_t(1) << 22);

// The hunks as unified-diff text: "@@ -a,b +c,d @@" headers and ' ', '-', '+' lines.
std::string unifiedText(const std::vector<DiffHunk> &Hunks);

} // namespace asmevo::report
