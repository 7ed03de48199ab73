// Edits: the strict parse of the edit JSON, the three window forms resolved on a real recovered
// kernel (Triton's gfx942 vector add), the replacement's validation and the candidate hash.
#include "asm/LineMap.h"
#include "asm/Recover.h"
#include "codeobj/Input.h"
#include "search/Edit.h"
#include "search/EditHunks.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;

namespace {

const char *kVadd = ASMEVO_SOURCE_DIR "/test/corpus/triton/gfx942/vector_add_fp32.hsaco";

struct Vadd {
  std::unique_ptr<OpenCodeObject> K;
  std::unique_ptr<SchedInfo> S;
  std::string Text;
  KernelLines Map;
  Vadd() {
    auto O = openCodeObject(kVadd);
    EXPECT_TRUE(bool(O));
    K = std::move(*O);
    auto R = recoverAssembly(K->C, kVadd, sha256Hex(K->C.Bytes), "k.s");
    EXPECT_TRUE(bool(R));
    Text = R->Asm;
    auto Si = SchedInfo::create(K->C);
    EXPECT_TRUE(bool(Si));
    S = std::move(*Si);
    auto M = mapKernelLines(K->C, *S, Text, "add_kernel");
    EXPECT_TRUE(bool(M)) << (M ? "" : llvm::toString(M.takeError()));
    Map = std::move(*M);
  }
  // The 0-based line of the first line whose trimmed text starts with P.
  size_t line(const std::string &P) const {
    for (size_t I = 0; I < Map.Lines.size(); ++I)
      if (llvm::StringRef(Map.Lines[I]).trim().starts_with(P))
        return I;
    ADD_FAILURE() << "no line " << P;
    return 0;
  }
};

std::optional<Edit> parse(const std::string &J, EditError &E) {
  return parseEdit(nlohmann::json::parse(J), "e.json", E);
}

} // namespace

TEST(Edit, ParsesTheThreeWindowForms) {
  EditError E;
  auto A = parse(R"({"window": {"function": "k", "first_line": 3, "last_line": 4},
                     "replacement": "\ts_nop 0", "rationale": "r"})",
                 E);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->W.FirstLine, 3u);
  EXPECT_EQ(A->W.LastLine, 4u);
  EXPECT_EQ(A->Rationale, "r");
  auto B = parse(R"({"window": {"function": "k", "offsets": [256, 264]}, "replacement": ""})", E);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->W.Offsets->first, 256u);
  auto C = parse(R"({"window": {"function": "k", "label": ".LBB0_1"}, "replacement": ""})", E);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->W.Label, ".LBB0_1");
  // The JSON it writes parses back to the same edit.
  auto D = parseEdit(editJson(*A), "x", E);
  ASSERT_TRUE(D);
  EXPECT_EQ(editJson(*D), editJson(*A));
}

TEST(Edit, RefusesWhatIsNotAnEdit) {
  EditError E;
  EXPECT_FALSE(parse(R"([1, 2])", E));
  EXPECT_EQ(E.Fault, EditFault::Malformed);
  EXPECT_EQ(E.Message, "e.json: an edit must be a JSON object, not array");
  EXPECT_FALSE(parse(R"({"window": {"function": "k", "first_line": 1, "last_line": 1},
                         "replacement": "", "run": "rm -rf /"})",
                     E));
  EXPECT_EQ(E.Message, "e.json: unknown key \"run\"");
  EXPECT_FALSE(parse(R"({"format": "asmevo-edit", "format_version": 2,
                         "window": {"function": "k", "label": ".L"}, "replacement": ""})",
                     E));
  EXPECT_EQ(E.Message, "e.json: \"format_version\" is 2; this build reads asmevo-edit version 1");
  EXPECT_FALSE(parse(R"({"format_version": "1", "window": {"function": "k", "label": ".L"},
                         "replacement": ""})",
                     E));
  EXPECT_EQ(E.Message,
            "e.json: \"format_version\" is \"1\"; this build reads asmevo-edit version 1");
  EXPECT_FALSE(parse(R"({"replacement": ""})", E));
  EXPECT_EQ(E.Message, "e.json: the edit has no \"window\" object");
  EXPECT_FALSE(parse(R"({"window": {"function": "k", "first_line": 1, "last_line": 1,
                         "label": ".L"}, "replacement": ""})",
                     E));
  EXPECT_EQ(E.Message, "e.json: the window needs exactly one of \"first_line\"/\"last_line\", "
                       "\"offsets\" or \"label\"");
  EXPECT_FALSE(parse(R"({"window": {"function": "k", "first_line": 5, "last_line": 4},
                         "replacement": ""})",
                     E));
  EXPECT_EQ(E.Message, "e.json: window last_line is before first_line");
  EXPECT_FALSE(parse(R"({"window": {"function": "k", "offsets": [8, 8]}, "replacement": ""})", E));
  EXPECT_EQ(E.Message, "e.json: window \"offsets\" must be [begin, end] with begin < end");
  EXPECT_FALSE(parse(R"({"window": {"function": "k", "label": ".L"}, "replacement": 3})", E));
  EXPECT_EQ(E.Message, "e.json: \"replacement\" must be a string, not number");
}

TEST(Edit, AppliesALineWindowAndChecksTheOriginal) {
  Vadd V;
  size_t W = V.line("s_waitcnt vmcnt(3)");
  Edit E;
  E.W.Function = "add_kernel";
  E.W.FirstLine = E.W.LastLine = unsigned(W + 1);
  E.Original = "\ts_waitcnt vmcnt(3)";
  E.Replacement = "\ts_waitcnt vmcnt(2)";
  EditError Err;
  std::vector<LineRange> Rs;
  auto T = applyEdits(V.Map, {E}, EditLimits{}, Err, &Rs);
  ASSERT_TRUE(T) << Err.Message;
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_EQ(Rs[0].First, W);
  // Exactly that line changed.
  std::string Expected = V.Text;
  Expected.replace(Expected.find("\ts_waitcnt vmcnt(3)"), 19, "\ts_waitcnt vmcnt(2)");
  EXPECT_EQ(*T, Expected);
  E.Original = "\ts_waitcnt vmcnt(0)";
  EXPECT_FALSE(applyEdits(V.Map, {E}, EditLimits{}, Err));
  EXPECT_EQ(Err.Fault, EditFault::OffWindow);
  EXPECT_EQ(Err.Message, "the window's text is not the edit's \"original\" (lines " +
                             std::to_string(W + 1) + "-" + std::to_string(W + 1) + ")");
}

TEST(Edit, ResolvesOffsetsToLinesAndRefusesWindowsOutsideTheKernel) {
  Vadd V;
  // The instruction at +0x100 (after the 256-byte kernarg-preload prologue) begins a window.
  const CodeLine *At = nullptr;
  for (const CodeLine &C : V.Map.Code)
    if (C.Offset == 0x100)
      At = &C;
  ASSERT_NE(At, nullptr);
  Window W;
  W.Function = "add_kernel";
  W.Offsets = {0x100, 0x100 + At->Size};
  EditError Err;
  auto R = resolveWindow(W, V.Map, Err);
  ASSERT_TRUE(R) << Err.Message;
  EXPECT_EQ(R->First, At->Line);
  EXPECT_EQ(R->Last, At->Line);
  W.Offsets = {0x102, 0x108};
  EXPECT_FALSE(resolveWindow(W, V.Map, Err));
  EXPECT_EQ(Err.Message, "window offsets [258, 264) are not on instruction boundaries of "
                         "function 'add_kernel'");
  W.Offsets.reset();
  W.FirstLine = W.LastLine = 1;
  EXPECT_FALSE(resolveWindow(W, V.Map, Err));
  EXPECT_EQ(Err.Fault, EditFault::OffWindow);
  EXPECT_NE(Err.Message.find("before them the kernarg-preload prologue"), std::string::npos)
      << Err.Message;
  W.Function = "other_kernel";
  EXPECT_FALSE(resolveWindow(W, V.Map, Err));
  EXPECT_EQ(Err.Message,
            "window function 'other_kernel' is not the kernel being searched ('add_kernel')");
  W.Function = "add_kernel";
  W.FirstLine = 0;
  W.Label = ".LBB0_99";
  EXPECT_FALSE(resolveWindow(W, V.Map, Err));
  EXPECT_EQ(Err.Message, "window label '.LBB0_99' is not in function 'add_kernel'");
}

TEST(Edit, RefusesDirectivesGlobalLabelsOverlapsAndSizes) {
  Vadd V;
  size_t W = V.line("s_waitcnt vmcnt(3)");
  Edit E;
  E.W.Function = "add_kernel";
  E.W.FirstLine = E.W.LastLine = unsigned(W + 1);
  EditError Err;
  for (auto [Rep, Msg] : std::vector<std::pair<std::string, std::string>>{
           {"\t.section .data", "replacement line 1: directive '.section' is not allowed in a "
                                "replacement (instructions, local labels, comments and .long "
                                "only)"},
           {"\ts_nop 0\nevil:", "replacement line 2: label 'evil:' is not local (.L...)"},
           {"\t.incbin \"/etc/passwd\"", "replacement line 1: directive '.incbin' is not allowed "
                                         "in a replacement (instructions, local labels, comments "
                                         "and .long only)"}}) {
    E.Replacement = Rep;
    EXPECT_FALSE(applyEdits(V.Map, {E}, EditLimits{}, Err));
    EXPECT_EQ(Err.Fault, EditFault::Refused);
    EXPECT_EQ(Err.Message, Msg);
  }
  E.Replacement = "\ts_nop 0\n\ts_nop 0";
  EXPECT_FALSE(applyEdits(V.Map, {E}, EditLimits{512, 1}, Err));
  EXPECT_EQ(Err.Fault, EditFault::TooLarge);
  EXPECT_EQ(Err.Message, "the replacement has 2 lines (at most 1)");
  Edit F = E;
  F.Replacement = "";
  EXPECT_FALSE(applyEdits(V.Map, {E, F}, EditLimits{}, Err));
  EXPECT_EQ(Err.Message, "the edits' windows overlap");
}

TEST(Edit, RefusesAnEditThatOnlySetsOrClearsCachePolicyBits) {
  // The timing model cannot price what nt does past the L1, and scope bits change coherence,
  // which the emulator does not check: such an edit is refused before anything is built.
  Vadd V;
  size_t W = V.line("buffer_load_dword v4, v0");
  std::string Load = V.Map.Lines[W];
  Edit E;
  E.W.Function = "add_kernel";
  E.W.FirstLine = E.W.LastLine = unsigned(W + 1);
  EditError Err;
  for (const char *Bits : {" nt", " sc1", " sc0 sc1", " nt ; streaming"}) {
    E.Replacement = Load + Bits;
    EXPECT_FALSE(applyEdits(V.Map, {E}, EditLimits{}, Err)) << Bits;
    EXPECT_EQ(Err.Fault, EditFault::Refused);
    EXPECT_EQ(Err.Message,
              "the edit only sets or clears cache-policy bits (sc0, sc1, nt; glc, slc, scc): the "
              "timing model cannot price them past the L1, and scope bits change coherence, "
              "which the emulator does not check");
  }
  // Moved with a wait and given a bit: more than a cache-policy edit.
  E.W.LastLine = E.W.FirstLine + 1;
  E.Replacement = V.Map.Lines[W + 1] + "\n" + Load + " nt";
  EXPECT_TRUE(applyEdits(V.Map, {E}, EditLimits{}, Err)) << Err.Message;
  // The same text in other spacing or with a comment is not a cache-policy edit either.
  E.W.LastLine = E.W.FirstLine;
  E.Replacement = "  " + llvm::StringRef(Load).trim().str() + " ; unchanged";
  EXPECT_TRUE(applyEdits(V.Map, {E}, EditLimits{}, Err)) << Err.Message;
}

TEST(Edit, CandidateHashIgnoresCommentsAndBlankSpace) {
  EXPECT_EQ(candidateHash("\ts_nop 0\n\tv_mov_b32 v0, v1\n"),
            candidateHash("  s_nop 0   ; padding\n\n\tv_mov_b32 v0, v1 // x\n"));
  EXPECT_NE(candidateHash("\ts_nop 0\n"), candidateHash("\ts_nop 1\n"));
}

TEST(EditHunks, ASpanChangedInPlacesIsOneEditPerRunAndAppliesToTheSameText) {
  // The vector add's code from its first buffer load to s_endpgm, changed in four places: a
  // line inserted before the span's first, one taken out, two changed two lines apart (one run),
  // and one inserted after the span's last. The edits, applied together, give the text with the
  // span replaced, each window holding only its run.
  Vadd V;
  const size_t First = V.line("buffer_load_dword"), Last = V.line("s_endpgm");
  ASSERT_GT(Last, First + 15);
  std::vector<std::string> Old(V.Map.Lines.begin() + long(First),
                               V.Map.Lines.begin() + long(Last) + 1);
  std::vector<std::string> New = Old;
  New.insert(New.end(), "\ts_nop 3");   // after the last line
  New[10] = "\ts_nop 2";                // changed ...
  New[8] = "\ts_nop 1";                 // ... with one unchanged line between
  New.erase(New.begin() + 4);           // taken out
  New.insert(New.begin(), "\ts_nop 0"); // before the first line
  std::vector<Edit> Es = hunkEdits("add_kernel", Old, New, unsigned(First + 1));
  ASSERT_EQ(Es.size(), 4u);
  // The insertion at the start takes the span's first line into its window.
  EXPECT_EQ(Es[0].W.FirstLine, First + 1);
  EXPECT_EQ(Es[0].W.LastLine, First + 1);
  EXPECT_EQ(Es[0].Replacement, "\ts_nop 0\n" + Old[0]);
  EXPECT_EQ(Es[1].W.FirstLine, First + 5);
  EXPECT_EQ(Es[1].W.LastLine, First + 5);
  EXPECT_EQ(Es[1].Replacement, "");
  EXPECT_EQ(Es[2].W.FirstLine, First + 9);
  EXPECT_EQ(Es[2].W.LastLine, First + 11);
  EXPECT_EQ(Es[2].Original, Old[8] + "\n" + Old[9] + "\n" + Old[10]);
  EXPECT_EQ(Es[2].Replacement, "\ts_nop 1\n" + Old[9] + "\n\ts_nop 2");
  // The insertion at the end takes the line before it.
  EXPECT_EQ(Es[3].W.FirstLine, Last + 1);
  EXPECT_EQ(Es[3].Replacement, Old.back() + "\n\ts_nop 3");
  EditError Err;
  auto Text = applyEdits(V.Map, Es, EditLimits{}, Err);
  ASSERT_TRUE(Text) << Err.Message;
  std::vector<std::string> Want(V.Map.Lines.begin(), V.Map.Lines.begin() + long(First));
  Want.insert(Want.end(), New.begin(), New.end());
  Want.insert(Want.end(), V.Map.Lines.begin() + long(Last) + 1, V.Map.Lines.end());
  std::string WantText;
  for (size_t I = 0; I < Want.size(); ++I)
    WantText += Want[I] + (I + 1 < Want.size() ? "\n" : "");
  EXPECT_EQ(*Text, WantText);
  // Nothing changed, or nothing to change: no edit.
  EXPECT_TRUE(hunkEdits("add_kernel", Old, Old, unsigned(First + 1)).empty());
  EXPECT_TRUE(hunkEdits("add_kernel", {}, New, unsigned(First + 1)).empty());
}
