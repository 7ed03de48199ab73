// An edit: one window of a node's assembly text replaced by new text, with the proposer's
// rationale. Every driver's proposal is one (rules, stochastic, exec:, and later llm), and
// every one goes through the same parse and the same validation before it is applied; an edit is
// data, never run.
//
// The edit JSON (format "asmevo-edit", version 1), as `exec:` drivers write it:
//   {"window": {"function": "K", "first_line": 120, "last_line": 124},
//    "replacement": "\ts_waitcnt vmcnt(1)\n\tv_add_f32 v1, v2, v3",
//    "rationale": "...", "expected_effect": "...",        (optional)
//    "original": "...",                                     (optional: the window's text as seen)
//    "direction": "latency hiding"}                         (optional)
// A window is one of: {"first_line", "last_line"} (1-based lines of the parent's text,
// inclusive), {"offsets": [begin, end]} (bytes from the kernel's entry in the parent's code
// object, on instruction boundaries, end exclusive) or {"label": ".LBB0_3"} (the lines after that
// label up to the next label or the function's end). An empty replacement deletes the window.
#pragma once

#include "asm/LineMap.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::search {

struct Window {
  std::string Function;
  // One of the three forms.
  unsigned FirstLine = 0, LastLine = 0; // 1-based, inclusive (0: not this form)
  std::optional<std::pair<uint64_t, uint64_t>> Offsets;
  std::string Label;
};

struct Edit {
  Window W;
  std::string Replacement;
  std::string Rationale, ExpectedEffect, Original, Direction;
};

// Why a proposal was not an edit, as the controller's memory and a driver's feedback name it.
enum class EditFault { Malformed, OffWindow, TooLarge, Refused };
const char *editFaultName(EditFault F); // "malformed", "off-window", "too-large", "refused"

struct EditError {
  EditFault Fault;
  std::string Message;
};

// Parse an edit JSON (Source names it in messages). Unknown keys are malformed.
std::optional<Edit> parseEdit(const nlohmann::json &J, const std::string &Source, EditError &Err);
nlohmann::json editJson(const Edit &E);

// The 0-based text lines [First, Last] a window covers in a node's text (its line map).
struct LineRange {
  size_t First = 0, Last = 0;
};
std::optional<LineRange> resolveWindow(const Window &W, const KernelLines &Map, EditError &Err);

struct EditLimits {
  size_t MaxWindowLines = 512, MaxReplacementLines = 1024;
};

// Check the replacement (instructions, local labels, comments and `.long` words only) and the
// window, and return the edited text. An edit whose replacement differs from its window only in
// cache-policy bits (sc0, sc1, nt; gfx90a's glc, slc, scc) is refused: the timing model cannot
// price what nt does past the L1, and the scope bits change coherence, which the emulator does
// not check (timing/Model.h).
std::optional<std::string> applyEdits(const KernelLines &Map, const std::vector<Edit> &Edits,
                                      const EditLimits &L, EditError &Err,
                                      std::vector<LineRange> *Ranges = nullptr);

// The candidate's identity: the SHA-256 of its code lines with comments and blank space
// removed, so that two texts differing only in comments are one candidate.
std::string candidateHash(const std::string &Text);

} // namespace asmevo::search
