// Requests and replies of the two dialects (llm/Dialect.h).
#include "llm/Dialect.h"

#include "support/Error.h"

#include "llvm/Support/JSON.h"

#include <cstdio>

namespace asmevo::llm {

bool parseDialect(const std::string &S, Dialect &D) {
  if (S == "anthropic")
    return D = Dialect::Anthropic, true;
  if (S == "openai")
    return D = Dialect::OpenAI, true;
  return false;
}

const char *dialectName(Dialect D) { return D == Dialect::Anthropic ? "anthropic" : "openai"; }

std::string requestPath(Dialect D) {
  return D == Dialect::Anthropic ? "/v1/messages" : "/v1/chat/completions";
}

nlohmann::json requestBody(Dialect D, const ChatRequest &R) {
  if (D == Dialect::Anthropic)
    return {{"model", R.Model},
            {"max_tokens", R.MaxTokens},
            {"system", R.System},
            {"messages", {{{"role", "user"}, {"content", R.Prompt}}}},
            {"tools",
             {{{"name", R.SchemaName},
               {"description", "Submit the answer as this tool's input, matching its schema."},
               {"input_schema", R.Schema}}}},
            {"tool_choice", {{"type", "tool"}, {"name", R.SchemaName}}}};
  return {
      {"model", R.Model},
      {"max_tokens", R.MaxTokens},
      {"messages",
       {{{"role", "system"}, {"content", R.System}}, {{"role", "user"}, {"content", R.Prompt}}}},
      {"response_format",
       {{"type", "json_schema"},
        {"json_schema", {{"name", R.SchemaName}, {"strict", true}, {"schema", R.Schema}}}}}};
}

std::vector<std::pair<std::string, std::string>> requestHeaders(Dialect D, const std::string &Key) {
  std::vector<std::pair<std::string, std::string>> H = {{"content-type", "application/json"}};
  if (D == Dialect::Anthropic) {
    H.push_back({"anthropic-version", "2023-06-01"});
    if (!Key.empty())
      H.push_back({"x-api-key", Key});
  } else if (!Key.empty()) {
    H.push_back({"authorization", "Bearer " + Key});
  }
  return H;
}

namespace {
// The usage's two counts (their names in the dialect) into R, or why they cannot be believed.
void readUsage(const nlohmann::json &J, const char *In, const char *Out, ChatReply &R) {
  auto It = J.find("usage");
  if (It == J.end() || !It->is_object()) {
    R.UsageProblem = "the reply has no usage object";
    return;
  }
  for (auto [Name, To] :
       {std::pair<const char *, uint64_t *>{In, &R.InputTokens}, {Out, &R.OutputTokens}}) {
    auto F = It->find(Name);
    if (F == It->end()) {
      R.UsageProblem = std::string("usage.") + Name + " is missing";
      return;
    }
    if (!F->is_number_unsigned()) {
      // Negative, fractional, too large for a count, or not a number at all.
      R.UsageProblem = std::string("usage.") + Name + " is " + excerpt(F->dump(), 40) +
                       ", not a count of tokens";
      return;
    }
    *To = F->get<uint64_t>();
  }
}

// J[Key] when it is a string, else "" (json::value throws on a value of another type).
std::string str(const nlohmann::json &J, const char *Key) {
  auto It = J.find(Key);
  return It != J.end() && It->is_string() ? It->get<std::string>() : std::string();
}
} // namespace

std::string excerpt(llvm::StringRef Text, size_t MaxBytes) {
  std::string T = Text.trim().str();
  if (!llvm::json::isUTF8(T))
    T = llvm::json::fixUTF8(T);
  if (T.size() <= MaxBytes)
    return T;
  size_t Cut = MaxBytes;
  while (Cut > 0 && (static_cast<unsigned char>(T[Cut]) & 0xC0) == 0x80)
    --Cut; // not inside a character
  return T.substr(0, Cut) + "...";
}

llvm::Expected<ChatReply> parseReply(Dialect D, const std::string &Body) {
  size_t Bad = 0;
  if (!llvm::json::isUTF8(Body, &Bad)) {
    char Hex[8];
    std::snprintf(Hex, sizeof Hex, "0x%02X", static_cast<unsigned char>(Body[Bad]));
    return makeError("the reply is not valid UTF-8 (byte " + std::string(Hex) + " at offset " +
                     std::to_string(Bad) + " of " + std::to_string(Body.size()) + "): '" +
                     excerpt(Body, 120) + "'");
  }
  nlohmann::json J = nlohmann::json::parse(Body, nullptr, false);
  auto shape = [&](const std::string &Why) {
    return makeError("the reply is not an " + std::string(dialectName(D)) + " reply: " + Why +
                     " ('" + excerpt(Body, 120) + "')");
  };
  if (J.is_discarded() || !J.is_object())
    return shape("not a JSON object");
  ChatReply R;
  if (D == Dialect::Anthropic) {
    readUsage(J, "input_tokens", "output_tokens", R);
    R.StopReason = str(J, "stop_reason");
    if (!J.contains("content") || !J["content"].is_array())
      return shape("no content array");
    for (const nlohmann::json &B : J["content"]) {
      if (!B.is_object())
        continue;
      std::string Type = str(B, "type");
      if (Type == "tool_use" && B.contains("input") && B["input"].is_object() && R.Object.is_null())
        R.Object = B["input"];
      else if (Type == "text" && B.contains("text") && B["text"].is_string())
        R.Text += B["text"].get<std::string>();
    }
    if (R.StopReason == "refusal" && R.Object.is_null()) {
      R.Refused = true;
      R.RefusalText = R.Text;
    }
    return R;
  }
  readUsage(J, "prompt_tokens", "completion_tokens", R);
  if (!J.contains("choices") || !J["choices"].is_array() || J["choices"].empty() ||
      !J["choices"][0].is_object() || !J["choices"][0].contains("message") ||
      !J["choices"][0]["message"].is_object())
    return shape("no choices[0].message");
  const nlohmann::json &M = J["choices"][0]["message"];
  R.StopReason = str(J["choices"][0], "finish_reason");
  if (M.contains("refusal") && M["refusal"].is_string() &&
      !M["refusal"].get<std::string>().empty()) {
    R.Refused = true;
    R.RefusalText = M["refusal"].get<std::string>();
    return R;
  }
  if (M.contains("content") && M["content"].is_string()) {
    R.Text = M["content"].get<std::string>();
    nlohmann::json O = nlohmann::json::parse(R.Text, nullptr, false);
    if (!O.is_discarded() && O.is_object())
      R.Object = std::move(O);
  }
  return R;
}

} // namespace asmevo::llm
