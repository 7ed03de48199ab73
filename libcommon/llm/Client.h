// An LLM endpoint as the search driver uses it: one structured call at a time (thread-safe, so
// that several workers may call at once), with the key read from an environment variable and
// never written anywhere, retries with backoff on 429, 5xx, a timeout or a cut-short reply
// (honouring retry-after), a run-wide budget of requests and tokens, token accounting, and an
// optional cache directory: a request made before (same dialect, model and body) is answered
// from the cache, so a run is replayable and nothing is paid for twice.
#pragma once

#include "llm/Dialect.h"

#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace asmevo::llm {

struct ClientOptions {
  std::string Url;   // the base URL ("https://api.anthropic.com", "http://127.0.0.1:8000")
  std::string Model; // required
  Dialect Dial = Dialect::Anthropic;
  std::string KeyEnv; // the environment variable holding the key ("": send none)
  double TimeoutSeconds = 120;
  unsigned Retries = 4;              // after the first try
  double BackoffSeconds = 1;         // the first retry's wait, doubled each time (capped at 60 s)
  uint64_t MaxRequests = 0;          // sent to the endpoint, cache hits not counted (0: no limit)
  uint64_t MaxTokens = 0;            // input + output tokens of the run (0: no limit)
  unsigned ReplyTokens = 4096;       // max_tokens of each request
  std::string CacheDir;              // "": no cache
  std::function<void(double)> Sleep; // for the tests; default: this thread sleeps
};

// Why a call gave no reply to use.
enum class CallFailure {
  Budget,    // the run's request or token budget is spent
  Transport, // no usable reply after every retry (timeouts, 5xx, 429, cut short, refused)
  Http,      // a status that is not retried (400, 401, 404, ...)
  Shape,     // a 2xx reply that is not the dialect's shape
};

class CallError : public llvm::ErrorInfo<CallError> {
public:
  static char ID;
  CallFailure Kind;
  std::string Message;
  CallError(CallFailure K, std::string M) : Kind(K), Message(std::move(M)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
};

struct Usage {
  uint64_t Requests = 0; // HTTP requests sent (retries included)
  uint64_t Calls = 0;    // calls answered (from the endpoint or the cache)
  uint64_t CacheHits = 0, Retries = 0;
  uint64_t InputTokens = 0, OutputTokens = 0; // of replies from the endpoint (not the cache)
  nlohmann::json json() const;
};

class Client {
public:
  // Errors: no model or URL, a dialect-less URL, a key variable that is not set, a cache
  // directory that cannot be made.
  static llvm::Expected<std::unique_ptr<Client>> create(const ClientOptions &O);

  // One call. Errors are CallError; no message ever holds the key.
  llvm::Expected<ChatReply> call(const ChatRequest &R);

  Usage usage() const;
  const ClientOptions &options() const { return O; }
  // Text with every occurrence of the key replaced by "[key]".
  std::string scrub(std::string Text) const;

private:
  Client(ClientOptions O, std::string Key) : O(std::move(O)), Key(std::move(Key)) {}
  ClientOptions O;
  std::string Key;
  mutable std::mutex Lock;
  Usage U;
};

} // namespace asmevo::llm
