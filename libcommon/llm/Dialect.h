// The two request/reply shapes an LLM endpoint speaks, for one structured call: a system prompt,
// one user message, and a reply that must be a JSON object matching a schema.
//   anthropic: POST <url>/v1/messages, headers x-api-key and anthropic-version: 2023-06-01;
//     {"model", "max_tokens", "system", "messages": [{"role": "user", "content": PROMPT}],
//      "tools": [{"name": NAME, "description", "input_schema": SCHEMA}],
//      "tool_choice": {"type": "tool", "name": NAME}}; the reply's object is the input of its
//     tool_use block; stop_reason "refusal" is a refusal; usage input_tokens/output_tokens.
//   openai (also vLLM and llama.cpp's llama-server): POST <url>/v1/chat/completions, header
//     Authorization: Bearer KEY; {"model", "max_tokens", "messages": [system, user],
//      "response_format": {"type": "json_schema", "json_schema": {"name", "strict": true,
//      "schema"}}}; the reply's object is choices[0].message.content parsed as JSON;
//     choices[0].message.refusal is a refusal; usage prompt_tokens/completion_tokens.
// (Anthropic Messages API and OpenAI chat completions references; llama-server serves both.)
#pragma once

#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace asmevo::llm {

enum class Dialect { Anthropic, OpenAI };
// "anthropic" or "openai"; false for anything else.
bool parseDialect(const std::string &S, Dialect &D);
const char *dialectName(Dialect D);

struct ChatRequest {
  std::string Model, System, Prompt;
  unsigned MaxTokens = 4096;
  std::string SchemaName; // [a-zA-Z0-9_-]+
  nlohmann::json Schema;  // the reply's JSON schema (an object schema)
};

// The path under the base URL, the body, and the headers (Key empty: no credential header).
std::string requestPath(Dialect D);
nlohmann::json requestBody(Dialect D, const ChatRequest &R);
std::vector<std::pair<std::string, std::string>> requestHeaders(Dialect D, const std::string &Key);

// What one reply said: the object (when it gave one), or a refusal with its text; the tokens
// it counted.
struct ChatReply {
  bool Refused = false;
  std::string RefusalText;
  nlohmann::json Object; // null unless a JSON object came back
  std::string Text;      // what came instead of an object (for a malformed reply's message)
  std::string StopReason;
  uint64_t InputTokens = 0, OutputTokens = 0;
  // Why the usage above cannot be believed ("" when both counts were there, whole and not
  // negative): an endpoint that misreports it would otherwise spend the token budget unseen.
  std::string UsageProblem;
  // Where the client keeps this reply once the caller found it usable (Client::keep); empty for
  // a reply from the cache or without one.
  std::string CacheFile, CacheEntry;
};

// A 2xx reply body in the dialect's shape. An error when the body is not valid UTF-8 (JSON text
// must be; a byte-order mark in front is ignored, as RFC 8259 allows) or not that shape at all
// (not JSON, no content/choices); a reply whose text is not a JSON object is a ChatReply with a
// null Object and the text, for the caller to count as malformed.
llvm::Expected<ChatReply> parseReply(Dialect D, const std::string &Body);

// At most MaxBytes of Text, trimmed, for a message: valid UTF-8 whatever Text is (a byte that is
// not becomes U+FFFD), cut between characters, "..." when cut. Reply text goes into the journal,
// the report and the next prompt as JSON strings, which must be UTF-8.
std::string excerpt(llvm::StringRef Text, size_t MaxBytes);

} // namespace asmevo::llm
