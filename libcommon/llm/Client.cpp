// The LLM client: budgets, retries, the cache (llm/Client.h).
#include "llm/Client.h"

#include "llm/Http.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace asmevo::llm {

char CallError::ID = 0;

nlohmann::json Usage::json() const {
  return {{"requests", Requests},        {"calls", Calls},
          {"cache_hits", CacheHits},     {"retries", Retries},
          {"input_tokens", InputTokens}, {"output_tokens", OutputTokens},
          {"usage_faults", UsageFaults}, {"charged_tokens", ChargedTokens}};
}

bool isEnvName(llvm::StringRef S) {
  if (S.empty() || !(llvm::isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return llvm::isAlnum(C) || C == '_'; });
}

llvm::Expected<std::unique_ptr<Client>> Client::create(const ClientOptions &O) {
  if (O.Model.empty())
    return makeError("--llm-model is required with --driver llm");
  // The model and the URL go into every request's JSON, which must be UTF-8.
  if (!llvm::json::isUTF8(O.Model) ||
      llvm::any_of(O.Model, [](char C) { return static_cast<unsigned char>(C) < 0x20; })) {
    std::string Shown;
    for (char C : excerpt(O.Model, 80)) {
      char Hex[8];
      std::snprintf(Hex, sizeof Hex, "\\x%02x", static_cast<unsigned char>(C));
      Shown += static_cast<unsigned char>(C) < 0x20 ? std::string(Hex) : std::string(1, C);
    }
    return makeError("--llm-model '" + Shown +
                     "' is not a model name (not UTF-8 text, or a control character)");
  }
  if (O.Url.empty())
    return makeError("--llm-url is required with --driver llm");
  llvm::StringRef U(O.Url);
  if ((!U.starts_with("http://") && !U.starts_with("https://")) ||
      llvm::any_of(U, [](char C) { return C <= ' ' || C == 0x7f || (C & 0x80); }))
    return makeError("--llm-url '" + excerpt(O.Url, 200) +
                     "' is not an http:// or https:// URL (ASCII, no spaces)");
  if (!(O.TimeoutSeconds > 0 && O.TimeoutSeconds <= kMaxTimeoutSeconds))
    return makeError("--llm-timeout must be more than 0 and at most " +
                     secondsText(kMaxTimeoutSeconds) + " seconds");
  if (O.ReplyTokens == 0 || O.ReplyTokens > kMaxReplyTokens)
    return makeError("--llm-reply-tokens must be 1 to " + std::to_string(kMaxReplyTokens));
  if (O.Retries > kMaxRetries)
    return makeError("--llm-retries must be at most " + std::to_string(kMaxRetries));
  std::string Key;
  if (!O.KeyEnv.empty()) {
    if (!isEnvName(O.KeyEnv))
      return makeError(kKeyEnvNotAName);
    const char *V = std::getenv(O.KeyEnv.c_str());
    if (!V || !*V)
      return makeError("--llm-key-env " + O.KeyEnv + ": the environment variable is not set");
    Key = V;
  }
  if (!O.CacheDir.empty() && llvm::sys::fs::exists(O.CacheDir) &&
      !llvm::sys::fs::is_directory(O.CacheDir))
    return makeError("--llm-cache '" + excerpt(O.CacheDir, 200) + "': not a directory");
  return std::unique_ptr<Client>(new Client(O, std::move(Key)));
}

std::string Client::scrub(std::string Text) const {
  if (Key.empty())
    return Text;
  for (size_t P; (P = Text.find(Key)) != std::string::npos;)
    Text.replace(P, Key.size(), "[key]");
  return Text;
}

Usage Client::usage() const {
  std::lock_guard<std::mutex> G(Lock);
  return U;
}

namespace {
// A retry-after header in seconds (the delta-seconds form), or a negative value.
double retryAfter(const HttpReply &R) {
  auto It = R.Headers.find("retry-after");
  if (It == R.Headers.end())
    return -1;
  char *End = nullptr;
  double S = std::strtod(It->second.c_str(), &End);
  return End && *End == 0 && S >= 0 ? std::min(S, 600.0) : -1;
}
} // namespace

llvm::Expected<ChatReply> Client::call(const ChatRequest &Req) {
  std::string Url = O.Url;
  while (!Url.empty() && Url.back() == '/')
    Url.pop_back();
  Url += requestPath(O.Dial);
  nlohmann::json Body = requestBody(O.Dial, Req);
  // The prompt was filled from the node's context, whose texts are UTF-8 (the driver checks its
  // prompt files): replace rather than throw should one not be.
  std::string Text = Body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // The cache: the dialect, the URL path and the body (which holds the model); never the key.
  std::string CacheFile;
  if (!O.CacheDir.empty()) {
    CacheFile =
        O.CacheDir + "/" +
        sha256Hex(std::string(dialectName(O.Dial)) + "\n" + requestPath(O.Dial) + "\n" + Text) +
        ".json";
    if (auto C = readFile(CacheFile)) {
      nlohmann::json J = nlohmann::json::parse((*C)->getBuffer(), nullptr, false);
      if (J.is_object() && J.contains("reply") && J["reply"].is_string()) {
        if (auto R = parseReply(O.Dial, J["reply"].get<std::string>())) {
          std::lock_guard<std::mutex> G(Lock);
          ++U.Calls;
          ++U.CacheHits;
          return R;
        } else {
          llvm::consumeError(R.takeError());
        }
      }
    } else {
      llvm::consumeError(C.takeError());
    }
  }
  auto Headers = requestHeaders(O.Dial, Key);
  // What a reply whose usage cannot be believed is charged instead: every token of the
  // request stands for at least one of its bytes, and the endpoint may not write more than
  // max_tokens.
  auto charge = [&](const std::string &Why) {
    std::lock_guard<std::mutex> G(Lock);
    ++U.UsageFaults;
    U.ChargedTokens += Text.size() + kTemplateTokens + Req.MaxTokens;
    return Why;
  };
  std::string LastWhy;
  for (unsigned Try = 0; Try <= O.Retries; ++Try) {
    {
      std::lock_guard<std::mutex> G(Lock);
      if (O.MaxRequests && U.Requests >= O.MaxRequests)
        return llvm::make_error<CallError>(
            CallFailure::Budget, "the request budget is spent (" + std::to_string(O.MaxRequests) +
                                     " requests, --llm-max-requests)");
      if (O.MaxTokens && U.spent() >= O.MaxTokens)
        return llvm::make_error<CallError>(
            CallFailure::Budget, "the token budget is spent (" + std::to_string(U.spent()) +
                                     " of " + std::to_string(O.MaxTokens) +
                                     " tokens, --llm-max-tokens)");
      ++U.Requests;
      if (Try)
        ++U.Retries;
    }
    double Wait = std::min(60.0, O.BackoffSeconds * double(1u << std::min(Try, 16u)));
    auto R = httpPost(Url, Headers, Text, O.TimeoutSeconds, O.MaxReplyBytes);
    if (!R) {
      // A timeout, a cut-short reply, no connection: retried. A reply past the size limit is
      // not: the endpoint would send it again.
      bool TooLarge = false;
      llvm::handleAllErrors(R.takeError(), [&](const HttpError &E) {
        TooLarge = E.Kind == HttpFailure::TooLarge;
        LastWhy = E.Message;
      });
      if (TooLarge)
        return llvm::make_error<CallError>(CallFailure::TooLarge,
                                           scrub(charge(LastWhy + " (its usage is unknown)")));
    } else if (R->Status == 429 || R->Status >= 500) {
      LastWhy = "HTTP " + std::to_string(R->Status) + " from " + Url;
      if (double A = retryAfter(*R); A >= 0) {
        Wait = A;
        LastWhy += " (retry-after " + secondsText(A) + " s)";
      }
    } else if (R->Status < 200 || R->Status >= 300) {
      return llvm::make_error<CallError>(CallFailure::Http,
                                         scrub("HTTP " + std::to_string(R->Status) + " from " +
                                               Url + ": " + excerpt(R->Body, 300)));
    } else {
      auto Reply = parseReply(O.Dial, R->Body);
      if (!Reply)
        return llvm::make_error<CallError>(CallFailure::Shape,
                                           scrub(charge(llvm::toString(Reply.takeError()))));
      // Counts the endpoint cannot have made: more input tokens than the request has bytes
      // (and a template), more output tokens than max_tokens allowed.
      if (Reply->UsageProblem.empty() && Reply->InputTokens > Text.size() + kTemplateTokens)
        Reply->UsageProblem = "usage says " + std::to_string(Reply->InputTokens) +
                              " input tokens for a request of " + std::to_string(Text.size()) +
                              " bytes";
      if (Reply->UsageProblem.empty() && Reply->OutputTokens > Req.MaxTokens)
        Reply->UsageProblem = "usage says " + std::to_string(Reply->OutputTokens) +
                              " output tokens, more than the request's max_tokens " +
                              std::to_string(Req.MaxTokens);
      if (!Reply->UsageProblem.empty())
        return llvm::make_error<CallError>(
            CallFailure::Shape,
            scrub(charge("the reply's token usage cannot be believed: " + Reply->UsageProblem +
                         "; " + std::to_string(Text.size() + kTemplateTokens + Req.MaxTokens) +
                         " tokens, the most the request could cost, are charged to "
                         "--llm-max-tokens instead")));
      {
        std::lock_guard<std::mutex> G(Lock);
        ++U.Calls;
        U.InputTokens += Reply->InputTokens;
        U.OutputTokens += Reply->OutputTokens;
      }
      if (!CacheFile.empty()) {
        nlohmann::json C = {{"format", "asmevo-llm-cache"},
                            {"dialect", dialectName(O.Dial)},
                            {"request", Body},
                            {"reply", R->Body}};
        Reply->CacheFile = CacheFile;
        Reply->CacheEntry =
            scrub(C.dump(1, ' ', false, nlohmann::json::error_handler_t::replace)) + "\n";
      }
      return Reply;
    }
    if (Try < O.Retries) {
      if (O.Sleep)
        O.Sleep(Wait);
      else
        std::this_thread::sleep_for(std::chrono::duration<double>(Wait));
    }
  }
  return llvm::make_error<CallError>(CallFailure::Transport, scrub("no usable reply after " +
                                                                   std::to_string(O.Retries + 1) +
                                                                   " tries; the last: " + LastWhy));
}

void Client::keep(const ChatReply &R) const {
  if (R.CacheFile.empty())
    return;
  // The cache is an optimization: a failure to write it is not the call's.
  if (!llvm::sys::fs::create_directories(O.CacheDir))
    llvm::consumeError(writeFileAtomic(R.CacheFile, R.CacheEntry, 0600));
}

} // namespace asmevo::llm
