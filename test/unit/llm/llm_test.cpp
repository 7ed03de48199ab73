// llm/: the two dialects' replies (objects, refusals, text that is not an object, bodies that
// are not the shape or not UTF-8, usage that cannot be believed), excerpts of reply text,
// prompt filling and checking, the client's configuration errors and key scrubbing, retries
// against a port nothing listens on, and the reply size limit against a local server that
// streams without end (no network: 127.0.0.1 only).
#include "TestHelpers.h"
#include "llm/Client.h"
#include "llm/Dialect.h"
#include "llm/Http.h"
#include "llm/Prompt.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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
            "--llm-url 'ftp://x' is not an http:// or https:// URL (ASCII, no spaces)");
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

TEST(Dialect, NotUtf8AndByteOrderMark) {
  auto Bad = parseReply(Dialect::Anthropic, "{\"content\": [{\"type\": \"text\", \"text\": "
                                            "\"caf\xe9\"}]}");
  ASSERT_FALSE(bool(Bad));
  std::string M = llvm::toString(Bad.takeError());
  EXPECT_EQ(M, "the reply is not valid UTF-8 (byte 0xE9 at offset 42 of 47): '{\"content\": "
               "[{\"type\": \"text\", \"text\": \"caf\xef\xbf\xbd\"}]}'");
  // A lone surrogate escape is not a character either: not JSON, so not the shape.
  auto Sur = parseReply(Dialect::OpenAI,
                        R"({"choices": [{"message": {"content": "\ud800"}}], "usage": {}})");
  ASSERT_FALSE(bool(Sur));
  llvm::consumeError(Sur.takeError());
  // A byte-order mark in front of the JSON is ignored (RFC 8259 lets a parser do so).
  auto Bom = parseReply(Dialect::OpenAI, "\xEF\xBB\xBF"
                                         R"({"choices": [{"message":
                        {"content": "\ufeff{\"a\": 1}"}}], "usage": {"prompt_tokens": 1,
                        "completion_tokens": 1}})");
  ASSERT_TRUE(bool(Bom)) << llvm::toString(Bom.takeError());
  EXPECT_EQ(Bom->Object, nlohmann::json({{"a", 1}}));
  // A stop_reason that is not a string does not throw.
  auto Odd = parseReply(Dialect::Anthropic, R"({"content": [{"type": 5}], "stop_reason": 7})");
  ASSERT_TRUE(bool(Odd));
  EXPECT_TRUE(Odd->Object.is_null());
}

TEST(Dialect, Excerpt) {
  EXPECT_EQ(excerpt("  short  ", 10), "short");
  // Cut between characters, never inside one: 'a' then 3-byte euro signs.
  std::string Euros = "a";
  for (int I = 0; I < 10; ++I)
    Euros += "\xE2\x82\xAC";
  EXPECT_EQ(excerpt(Euros, 8), "a\xE2\x82\xAC\xE2\x82\xAC...");
  EXPECT_EQ(excerpt(Euros, 7), "a\xE2\x82\xAC\xE2\x82\xAC...");
  EXPECT_EQ(excerpt(Euros, 6), "a\xE2\x82\xAC...");
  // Bytes that are not UTF-8 become U+FFFD.
  EXPECT_EQ(excerpt("a\xFF\xFE"
                    "b",
                    100),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
}

TEST(Dialect, UsageThatCannotBeBelieved) {
  auto problem = [](const char *Usage) {
    auto R = parseReply(Dialect::Anthropic, std::string(R"({"content": [], )") + Usage + "}");
    EXPECT_TRUE(bool(R));
    return R ? R->UsageProblem : std::string("?");
  };
  EXPECT_EQ(problem(R"("usage": {"input_tokens": 3, "output_tokens": 4})"), "");
  EXPECT_EQ(problem(R"("x": 1)"), "the reply has no usage object");
  EXPECT_EQ(problem(R"("usage": [1, 2])"), "the reply has no usage object");
  EXPECT_EQ(problem(R"("usage": {"output_tokens": 4})"), "usage.input_tokens is missing");
  EXPECT_EQ(problem(R"("usage": {"input_tokens": -3, "output_tokens": 4})"),
            "usage.input_tokens is -3, not a count of tokens");
  EXPECT_EQ(problem(R"("usage": {"input_tokens": 3, "output_tokens": 4.5})"),
            "usage.output_tokens is 4.5, not a count of tokens");
  EXPECT_EQ(problem(R"("usage": {"input_tokens": 3, "output_tokens": null})"),
            "usage.output_tokens is null, not a count of tokens");
  EXPECT_EQ(problem(R"("usage": {"input_tokens": 1e30, "output_tokens": 4})"),
            "usage.input_tokens is 1e+30, not a count of tokens");
  auto O = parseReply(Dialect::OpenAI, R"({"choices": [{"message": {"content": "{}"}}],
                      "usage": {"prompt_tokens": "7", "completion_tokens": 1}})");
  ASSERT_TRUE(bool(O));
  EXPECT_EQ(O->UsageProblem, "usage.prompt_tokens is \"7\", not a count of tokens");
}

TEST(Prompt, Check) {
  auto msg = [](const std::string &Text, std::vector<std::string> Names = {"a", "b"}) {
    llvm::Error E = checkPrompt(Text, "p.txt", Names);
    return E ? failure(std::move(E)).Message : std::string();
  };
  EXPECT_EQ(msg("x {{a}}\n{{b}}\n"), "");
  EXPECT_EQ(msg("x\n{{a}} {{c}}"), "'p.txt':2: the prompt template names {{c}}, which the "
                                   "driver does not fill (it fills a, b)");
  EXPECT_EQ(msg("{{a}}", {}), "'p.txt':1: the prompt template names {{a}}, which the driver does "
                              "not fill (this prompt is sent as it is)");
  EXPECT_EQ(msg("x\n\n{{a"), "'p.txt':3: an unclosed {{ in the prompt template");
  EXPECT_EQ(msg("\xEF\xBB\xBFx"), "'p.txt':1: the prompt starts with a UTF-8 byte-order mark, "
                                  "which the model would get as text; save it without one");
  EXPECT_EQ(msg("x\ny\xC3("), "'p.txt':2: the prompt is not valid UTF-8 (byte 0xC3 at offset 3)");
  EXPECT_EQ(msg(" \n\t"), "'p.txt':1: the prompt is empty");
  EXPECT_EQ(msg(std::string((1u << 20) + 1, 'x')),
            "'p.txt':1: the prompt is larger than 1 MiB (1048577 bytes)");
}

TEST(Client, KeyVariableNames) {
  EXPECT_TRUE(isEnvName("ANTHROPIC_API_KEY"));
  EXPECT_TRUE(isEnvName("_k9"));
  for (const char *Bad : {"", "9KEY", "sk-ant-api03-xyz", "A B", "A=B", "KEY$", "K\xC3\xA9"})
    EXPECT_FALSE(isEnvName(Bad)) << Bad;
  ClientOptions O;
  O.Url = "http://127.0.0.1:9";
  O.Model = "m";
  O.KeyEnv = "sk-ant-api03-SECRETVALUE";
  std::string M = llvm::toString(Client::create(O).takeError());
  EXPECT_EQ(M.find("SECRETVALUE"), std::string::npos) << M;
  EXPECT_EQ(M, kKeyEnvNotAName);
}

namespace {
// A server on 127.0.0.1 that answers one request with Head and then white space until the client
// hangs up (at most 1 GiB), on its own thread.
class StreamingServer {
public:
  explicit StreamingServer(std::string Head) : Head(std::move(Head)) {
    Fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in A{};
    A.sin_family = AF_INET;
    A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(Fd, reinterpret_cast<sockaddr *>(&A), sizeof A);
    listen(Fd, 1);
    socklen_t L = sizeof A;
    getsockname(Fd, reinterpret_cast<sockaddr *>(&A), &L);
    Port = ntohs(A.sin_port);
    T = std::thread([this] { serve(); });
  }
  ~StreamingServer() {
    wait();
    close(Fd);
  }
  void wait() {
    if (T.joinable())
      T.join();
  }
  unsigned Port = 0;
  size_t Sent = 0;

private:
  void serve() {
    int C = accept(Fd, nullptr, nullptr);
    char Buf[4096];
    std::string Req;
    while (Req.find("\r\n\r\n") == std::string::npos) {
      ssize_t N = read(C, Buf, sizeof Buf);
      if (N <= 0)
        break;
      Req.append(Buf, size_t(N));
    }
    send(C, Head.data(), Head.size(), MSG_NOSIGNAL);
    bool Chunked = Head.find("chunked") != std::string::npos;
    std::string Block(65536, ' ');
    std::string Chunk = "10000\r\n" + Block + "\r\n";
    const std::string &Out = Chunked ? Chunk : Block;
    while (Sent < (1ull << 30) && send(C, Out.data(), Out.size(), MSG_NOSIGNAL) > 0)
      Sent += Out.size();
    close(C);
  }
  std::string Head;
  int Fd = -1;
  std::thread T;
};
} // namespace

TEST(Http, RepliesPastTheLimitStopAsTheyArrive) {
  for (const char *Head : {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: 300000000\r\n\r\n"}) {
    auto T0 = std::chrono::steady_clock::now();
    std::optional<llvm::Expected<HttpReply>> R;
    size_t Sent = 0;
    {
      StreamingServer S(Head);
      R.emplace(httpPost("http://127.0.0.1:" + std::to_string(S.Port) + "/v1/messages", {}, "{}",
                         60, 1u << 20));
      S.wait();
      Sent = S.Sent;
    }
    double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    ASSERT_FALSE(bool(*R)) << Head;
    HttpFailure K = HttpFailure::Other;
    std::string M;
    llvm::handleAllErrors(R->takeError(), [&](const HttpError &E) {
      K = E.Kind;
      M = E.Message;
    });
    EXPECT_EQ(K, HttpFailure::TooLarge) << M;
    EXPECT_NE(M.find("is larger than 1 MiB, the most a reply may have"), std::string::npos) << M;
    EXPECT_LT(Secs, 30) << Head; // not read until the 60 s timeout
    EXPECT_LT(Sent, size_t(1) << 30) << Head;
  }
}
