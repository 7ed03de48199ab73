// Requests and replies of the two dialects (llm/Dialect.h).
#include "llm/Dialect.h"

#include "support/Error.h"

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
uint64_t count(const nlohmann::json &U, const char *Name) {
  auto It = U.find(Name);
  return It != U.end() && It->is_number_unsigned() ? It->get<uint64_t>() : 0;
}
} // namespace

llvm::Expected<ChatReply> parseReply(Dialect D, const std::string &Body) {
  nlohmann::json J = nlohmann::json::parse(Body, nullptr, false);
  auto shape = [&](const std::string &Why) {
    return makeError("the reply is not an " + std::string(dialectName(D)) + " reply: " + Why +
                     " ('" + llvm::StringRef(Body).trim().take_front(120).str() + "')");
  };
  if (J.is_discarded() || !J.is_object())
    return shape("not a JSON object");
  ChatReply R;
  if (D == Dialect::Anthropic) {
    if (J.contains("usage") && J["usage"].is_object()) {
      R.InputTokens = count(J["usage"], "input_tokens");
      R.OutputTokens = count(J["usage"], "output_tokens");
    }
    R.StopReason = J.value("stop_reason", "");
    if (!J.contains("content") || !J["content"].is_array())
      return shape("no content array");
    for (const nlohmann::json &B : J["content"]) {
      if (!B.is_object())
        continue;
      std::string Type = B.value("type", "");
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
  if (J.contains("usage") && J["usage"].is_object()) {
    R.InputTokens = count(J["usage"], "prompt_tokens");
    R.OutputTokens = count(J["usage"], "completion_tokens");
  }
  if (!J.contains("choices") || !J["choices"].is_array() || J["choices"].empty() ||
      !J["choices"][0].is_object() || !J["choices"][0].contains("message") ||
      !J["choices"][0]["message"].is_object())
    return shape("no choices[0].message");
  const nlohmann::json &M = J["choices"][0]["message"];
  R.StopReason = J["choices"][0].value("finish_reason", "");
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
