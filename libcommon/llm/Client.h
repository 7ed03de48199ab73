// An LLM endpoint as the search driver uses it: one structured call at a time (thread-safe, so
// that several workers may call at once), with the key read from an environment variable and
// never written anywhere, retries with backoff on 429, 5xx, a timeout or a cut-short reply
// (honouring retry-after), a run-wide budget of requests and tokens (finite by default: a
// driver that loops must not spend without end), token accounting that does not take an
// endpoint's word for counts it cannot have made, and an optional cache directory: a request
// made before (same dialect, model and body) is answered from the cache, so a run is
// replayable and nothing is paid for twice. Only replies the caller found usable are kept
// there (keep()): a reply that was not an edit is asked again on a rerun.
#pragma once

#include "llm/Dialect.h"

#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace asmevo::llm {

// The budgets' defaults (finite: a driver that loops must not spend without end). A search
// step is a plan and an edit request (500 requests: some 250 candidates), each holding the
// kernel's numbered assembly: 13 to 17 KB for the tests' 255-line vector add, and a run of
// issue 37 spent 17.1 M input tokens on 4100 requests. 5 million tokens let 500 requests
// average 10000. Either may be raised, or set to 0 (no limit) on purpose.
constexpr uint64_t kDefaultMaxRequests = 500;
constexpr uint64_t kDefaultMaxTokens = 5'000'000;
// The most a reply's body may have: an edit of max_tokens 4096 is some 20 KiB of JSON, and
// --llm-reply-tokens' largest value (kMaxReplyTokens) some 4 MiB of text. Past it the transfer
// stops as the bytes arrive.
constexpr size_t kMaxReplyBytes = 8u << 20;
constexpr unsigned kMaxReplyTokens = 1'000'000;
// Input tokens an endpoint adds to a request's own text (its chat template, the tool-use
// preamble): a reported input count above the request's bytes plus this cannot be true, since
// every token of the request stands for at least one of its bytes.
constexpr uint64_t kTemplateTokens = 4096;

// Bounds of the other options: a time that converts to milliseconds, and retries whose
// backoff (capped at 60 s each) ends within the hour.
constexpr double kMaxTimeoutSeconds = 86400;
constexpr unsigned kMaxRetries = 50;

// True for an environment variable name: [A-Za-z_][A-Za-z0-9_]*.
bool isEnvName(llvm::StringRef S);
// The refusal of a --llm-key-env value that is not a name. The value may be the key itself,
// pasted in the wrong place, so the message does not repeat it: it may end up in a log.
inline constexpr const char *kKeyEnvNotAName =
    "--llm-key-env takes the name of the environment variable that holds the key (letters, "
    "digits and '_', not starting with a digit); the value given is not one, and is not shown "
    "here since it may be the key itself";

struct ClientOptions {
  std::string Url;   // the base URL ("https://api.anthropic.com", "http://127.0.0.1:8000")
  std::string Model; // required
  Dialect Dial = Dialect::Anthropic;
  std::string KeyEnv; // the environment variable holding the key ("": send none)
  double TimeoutSeconds = 120;
  unsigned Retries = 4;      // after the first try
  double BackoffSeconds = 1; // the first retry's wait, doubled each time (capped at 60 s)
  uint64_t MaxRequests = kDefaultMaxRequests; // sent, cache hits not counted (0: no limit)
  uint64_t MaxTokens = kDefaultMaxTokens;     // input + output tokens of the run (0: no limit)
  unsigned ReplyTokens = 4096;                // max_tokens of each request
  size_t MaxReplyBytes = kMaxReplyBytes;
  std::string CacheDir;              // "": no cache; made when the first reply is kept
  std::function<void(double)> Sleep; // for the tests; default: this thread sleeps
};

// Why a call gave no reply to use.
enum class CallFailure {
  Budget,    // the run's request or token budget is spent
  Transport, // no usable reply after every retry (timeouts, 5xx, 429, cut short, refused)
  Http,      // a status that is not retried (400, 401, 404, ...)
  Shape,     // a 2xx reply that is not the dialect's shape, not UTF-8, or misreports its usage
  TooLarge,  // a reply past MaxReplyBytes (not retried: the endpoint would do it again)
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
  uint64_t InputTokens = 0, OutputTokens = 0; // as the endpoint counted them (not the cache's)
  // Replies whose usage was missing or could not be true (and replies cut off past the size
  // limit), and the tokens charged for them against the budget instead: the most the request
  // could have cost (its bytes in, its max_tokens out).
  uint64_t UsageFaults = 0, ChargedTokens = 0;
  uint64_t spent() const { return InputTokens + OutputTokens + ChargedTokens; }
  nlohmann::json json() const;
};

class Client {
public:
  // Errors: no model or URL, a URL that is not http(s), a key variable that is not a variable
  // name (never echoed: it may be the key) or is not set, a cache path that is not a
  // directory. Nothing is written.
  static llvm::Expected<std::unique_ptr<Client>> create(const ClientOptions &O);

  // One call. Errors are CallError; no message ever holds the key, and every message is UTF-8.
  llvm::Expected<ChatReply> call(const ChatRequest &R);

  // Keep a reply of call() in the cache: the caller found it usable (a plan, an edit that
  // became a candidate). Does nothing without a cache or for a reply from it.
  void keep(const ChatReply &R) const;

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
