// llm/: the two dialects' replies (objects, refusals, text that is not an object, bodies that
// are not the shape), prompt filling and its errors, the client's configuration errors and key
// scrubbing, and retries against a port nothing listens on (no network: 127.0.0.1 only).
#include "TestHelpers.h"
#include "llm/Client.h"
#include "llm/Dialect.h"
#include "llm/Prompt.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::llm;
using namespace asmevo::test;

TEST(Dialect, AnthropicReplies) {
  auto R = parseReply(Dialect::Anthropic,
                      R"({"content": [{"type": "text", "text": "ok"}, {"type": "tool_use",
                      "name": "asmevo_edit", "input": {"a": 1}}], "stop_reason": "tool_use",
                      "usage": {"input_tokens": 12, "output_tokens": 5}})");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Object, nlohmann::json({{"a", 1}}));
  EXPECT_FALSE(R->Refused);
  EXPECT_EQ(R->InputTokens, 12u);
  EXPECT_EQ(R->OutputTokens, 5u);
  auto Ref =
      parseReply(Dialect::Anthropic,
                 R"({"content": [{"type": "text", "text": "no"}], "stop_reason": "refusal"})");
  ASSERT_TRUE(bool(Ref));
  EXPECT_TRUE(Ref->Refused);
  EXPECT_EQ(Ref->RefusalText, "no");
  auto Text = parseReply(Dialect::Anthropic, R"({"content": [{"type": "text", "text": "hi"}]})");
  ASSERT_TRUE(bool(Text));
  EXPECT_TRUE(Text->Object.is_null());
  EXPECT_EQ(Text->Text, "hi");
  auto Bad = parseReply(Dialect::Anthropic, R"({"error": "x"})");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "the reply is not an anthropic reply: no content array ('{\"error\": \"x\"}')");
}

TEST(Dialect, OpenAIReplies) {
  auto R = parseReply(Dialect::OpenAI, R"({"choices": [{"message": {"content": "{\"a\": [1]}"},
                      "finish_reason": "stop"}], "usage": {"prompt_tokens": 7,
                      "completion_tokens": 3}})");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Object, nlohmann::json({{"a", {1}}}));
  EXPECT_EQ(R->InputTokens, 7u);
  EXPECT_EQ(R->OutputTokens, 3u);
  auto Ref = parseReply(Dialect::OpenAI,
                        R"({"choices": [{"message": {"content": null, "refusal": "sorry"}}]})");
  ASSERT_TRUE(bool(Ref));
  EXPECT_TRUE(Ref->Refused);
  EXPECT_EQ(Ref->RefusalText, "sorry");
  auto Arr = parseReply(Dialect::OpenAI, R"({"choices": [{"message": {"content": "[1, 2]"}}]})");
  ASSERT_TRUE(bool(Arr));
  EXPECT_TRUE(Arr->Object.is_null()); // an array is not an object
  EXPECT_EQ(Arr->Text, "[1, 2]");
  auto Bad = parseReply(Dialect::OpenAI, "<html>");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "the reply is not an openai reply: not a JSON object ('<html>')");
}

TEST(Dialect, Requests) {
  ChatRequest R;
  R.Model = "m";
  R.System = "S";
  R.Prompt = "P";
  R.MaxTokens = 100;
  R.SchemaName = "x";
  R.Schema = {{"type", "object"}};
  nlohmann::json A = requestBody(Dialect::Anthropic, R);
  EXPECT_EQ(A["max_tokens"], 100);
  EXPECT_EQ(A["system"], "S");
  EXPECT_EQ(A["tool_choice"], nlohmann::json({{"type", "tool"}, {"name", "x"}}));
  EXPECT_EQ(A["tools"][0]["input_schema"], R.Schema);
  nlohmann::json O = requestBody(Dialect::OpenAI, R);
  EXPECT_EQ(O["messages"][0], nlohmann::json({{"role", "system"}, {"content", "S"}}));
  EXPECT_EQ(O["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(requestPath(Dialect::Anthropic), "/v1/messages");
  EXPECT_EQ(requestPath(Dialect::OpenAI), "/v1/chat/completions");
  auto H = requestHeaders(Dialect::OpenAI, "");
  EXPECT_EQ(H.size(), 1u); // no key: no authorization header
}

TEST(Prompt, FillAndErrors) {
  auto P = fillPrompt("a {{x}} b {{y}}", {{"x", "X"}, {"y", {1, 2}}}, "t.txt");
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(*P, "a X b [\n 1,\n 2\n]");
  auto U = fillPrompt("a {{z}}", {{"x", "X"}}, "t.txt");
  ASSERT_FALSE(bool(U));
  EXPECT_EQ(failure(U.takeError()).Message,
            "'t.txt'@0x2: the prompt template names {{z}}, which the driver does not fill");
  auto C = fillPrompt("a {{x", {{"x", "X"}}, "t.txt");
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(failure(C.takeError()).Message, "'t.txt'@0x2: an unclosed {{ in the prompt template");
  // The shipped prompts load.
  for (const char *Name : {"system", "plan", "replan", "edit"})
    EXPECT_TRUE(bool(loadPrompt(Name))) << Name;
}

TEST(Client, ConfigurationScrubbingAndRetries) {
  ClientOptions O;
  O.Url = "http://127.0.0.1:9";
  EXPECT_EQ(llvm::toString(Client::create(O).takeError()),
            "--llm-model is required with --driver llm");
  O.Model = "m";
  O.Url = "ftp://x";
  EXPECT_EQ(llvm::toString(Client::create(O).takeError()),
            "--llm-url 'ftp://x' is not an http:// or https:// URL");
  O.Url = "http://127.0.0.1:9/";
  O.KeyEnv = "ASMEVO_LLM_TEST_KEY";
  ScopedEnv None("ASMEVO_LLM_TEST_KEY", nullptr);
  EXPECT_EQ(llvm::toString(Client::create(O).takeError()),
            "--llm-key-env ASMEVO_LLM_TEST_KEY: the environment variable is not set");
  ScopedEnv Key("ASMEVO_LLM_TEST_KEY", "sk-secret-42");
  std::vector<double> Slept;
  O.Sleep = [&](double S) { Slept.push_back(S); };
  O.Retries = 2;
  O.BackoffSeconds = 0.5;
  auto C = Client::create(O);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ((*C)->scrub("a sk-secret-42 b sk-secret-42"), "a [key] b [key]");
  ChatRequest R;
  R.Model = "m";
  R.SchemaName = "x";
  R.Schema = {{"type", "object"}};
  // Nothing listens on port 9: three tries, backing off 0.5 then 1 s, then a transport error.
  auto Got = (*C)->call(R);
  ASSERT_FALSE(bool(Got));
  std::string M;
  CallFailure K = CallFailure::Http;
  llvm::handleAllErrors(Got.takeError(), [&](const CallError &E) {
    M = E.Message;
    K = E.Kind;
  });
  EXPECT_EQ(K, CallFailure::Transport);
  EXPECT_EQ(
      M.rfind("no usable reply after 3 tries; the last: POST http://127.0.0.1:9/v1/messages: ", 0),
      0u)
      << M;
  EXPECT_EQ(Slept, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ((*C)->usage().Requests, 3u);
  EXPECT_EQ((*C)->usage().Retries, 2u);
  // The request budget.
  O.MaxRequests = 1;
  auto B = Client::create(O);
  ASSERT_TRUE(bool(B));
  llvm::consumeError((*B)->call(R).takeError());
  auto Spent = (*B)->call(R);
  ASSERT_FALSE(bool(Spent));
  EXPECT_EQ(llvm::toString(Spent.takeError()),
            "the request budget is spent (1 requests, --llm-max-requests)");
}
