// A change of a span of a node's text as edits of small windows: a line diff (longest common
// subsequence) of the span against its replacement, one edit per run of changed lines. A driver
// whose change spans more lines than one window may hold (EditLimits: flash attention's K loop,
// pipelined, spans 554 lines) proposes it so, as one proposal (Proposal::More); applyEdits
// gives back exactly the replacement.
#pragma once

#include "search/Edit.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace asmevo::search {

// The edits of function Function that turn Old, the node's text lines from 1-based line
// FirstLine on, into New: one per run of changed lines, runs less than three unchanged lines
// apart taken as one, an insertion's window widened to the unchanged line before it (after it at
// the span's start). Each edit's Original is its window's text; Rationale, ExpectedEffect and
// Direction are left empty. Empty when Old is empty or equals New, or when the diff would take more
// than kMaxHunkCells table cells (Old.size() x New.size()).
std::vector<Edit> hunkEdits(const std::string &Function, llvm::ArrayRef<std::string> Old,
                            llvm::ArrayRef<std::string> New, unsigned FirstLine);
constexpr size_t kMaxHunkCells = size_t(1) << 24;

} // namespace asmevo::search
