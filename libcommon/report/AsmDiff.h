// A line diff of two assembly texts as unified-diff hunks (K0's or the parent's text against a
// commit's), for the report. The common head and tail are cut first (an edit touches a window),
// and the rest is matched by a longest common subsequence when it has at most MaxCells line
// pairs, else by Myers' shortest edit script while that needs at most MaxCells cells (a text of
// thousands of lines with a few edits spread over it); a middle too large for both is shown as
// all of its old lines removed and all new ones added. The instructions of the old text that
// the new one has fewer of (by mnemonic) are marked as deleted, so that a report can show what
// an edit took away, not only what it changed.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace asmevo::report {

struct DiffLine {
  char Kind = ' ';             // ' ' context, '-' only in the old text, '+' only in the new
  std::string Text;            // without its end of line
  size_t OldNo = 0, NewNo = 0; // 1-based line numbers (0: not in that text)
  bool Deleted = false;        // a '-' instruction line counted by markDeleted
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

// The mnemonic of an instruction line ("s_waitcnt" of "\ts_waitcnt vmcnt(0) ; c"), or "" for a
// label, a directive, a comment or a blank line.
std::string mnemonicOf(llvm::StringRef Line);

// The instructions Old has more of than New, per mnemonic (how many more): the instructions of
// Old that New deleted (or replaced by others). Marks as many '-' lines of each such mnemonic in
// Hunks (a diff of Old against New) Deleted, those without an equal '+' line in the diff first.
std::map<std::string, size_t> markDeleted(llvm::StringRef Old, llvm::StringRef New,
                                          std::vector<DiffHunk> &Hunks);

// The hunks as unified-diff text: "@@ -a,b +c,d @@" headers and ' ', '-', '+' lines.
std::string unifiedText(const std::vector<DiffHunk> &Hunks);

} // namespace asmevo::report
