// The LLM client: budgets, retries, the cache (llm/Client.h).
#include "llm/Client.h"

#include "llm/Http.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace asmevo::llm {

char CallError::ID = 0;

nlohmann::json Usage::json() const {
  return {{"requests", Requests},        {"calls", Calls},
          {"cache_hits", CacheHits},     {"retries", Retries},
          {"input_tokens", InputTokens}, {"output_tokens", OutputTokens}};
}

llvm::Expected<std::unique_ptr<Client>> Client::create(const ClientOptions &O) {
  if (O.Model.empty())
    return makeError("--llm-model is required with --driver llm");
  if (O.Url.empty())
    return makeError("--llm-url is required with --driver llm");
  llvm::StringRef U(O.Url);
  if (!U.starts_with("http://") && !U.starts_with("https://"))
    return makeError("--llm-url '" + O.Url + "' is not an http:// or https:// URL");
  std::string Key;
  if (!O.KeyEnv.empty()) {
    const char *V = std::getenv(O.KeyEnv.c_str());
    if (!V || !*V)
      return makeError("--llm-key-env " + O.KeyEnv + ": the environment variable is not set");
    Key = V;
  }
  if (!O.CacheDir.empty())
    if (std::error_code EC = llvm::sys::fs::create_directories(O.CacheDir))
      return makeError("--llm-cache '" + O.CacheDir + "': " + EC.message());
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
  std::string Text = Body.dump();
  // The cache: the dialect, the URL path and the body (which holds the model); never the key.
  std::string CacheFile;
  if (!O.CacheDir.empty()) {
    CacheFile =
        O.CacheDir + "/" +
        sha256Hex(std::string(dialectName(O.Dial)) + "\n" + requestPath(O.Dial) + "\n" + Text) +
        ".json";
    if (auto C = readFile(CacheFile)) {
      nlohmann::json J = nlohmann::json::parse((*C)->getBuffer(), nullptr, false);
      if (J.is_object() && J.contains("reply") && J["reply"].is_string())
        if (auto R = parseReply(O.Dial, J["reply"].get<std::string>())) {
          std::lock_guard<std::mutex> G(Lock);
          ++U.Calls;
          ++U.CacheHits;
          return R;
        } else {
          llvm::consumeError(R.takeError());
        }
    } else {
      llvm::consumeError(C.takeError());
    }
  }
  auto Headers = requestHeaders(O.Dial, Key);
  std::string LastWhy;
  for (unsigned Try = 0; Try <= O.Retries; ++Try) {
    {
      std::lock_guard<std::mutex> G(Lock);
      if (O.MaxRequests && U.Requests >= O.MaxRequests)
        return llvm::make_error<CallError>(
            CallFailure::Budget, "the request budget is spent (" + std::to_string(O.MaxRequests) +
                                     " requests, --llm-max-requests)");
      if (O.MaxTokens && U.InputTokens + U.OutputTokens >= O.MaxTokens)
        return llvm::make_error<CallError>(
            CallFailure::Budget, "the token budget is spent (" +
                                     std::to_string(U.InputTokens + U.OutputTokens) + " of " +
                                     std::to_string(O.MaxTokens) + " tokens, --llm-max-tokens)");
      ++U.Requests;
      if (Try)
        ++U.Retries;
    }
    double Wait = std::min(60.0, O.BackoffSeconds * double(1u << std::min(Try, 16u)));
    auto R = httpPost(Url, Headers, Text, O.TimeoutSeconds);
    if (!R) {
      LastWhy = llvm::toString(R.takeError()); // a timeout, a cut-short reply, no connection
    } else if (R->Status == 429 || R->Status >= 500) {
      LastWhy = "HTTP " + std::to_string(R->Status) + " from " + Url;
      if (double A = retryAfter(*R); A >= 0) {
        Wait = A;
        LastWhy += " (retry-after " + secondsText(A) + " s)";
      }
    } else if (R->Status < 200 || R->Status >= 300) {
      return llvm::make_error<CallError>(
          CallFailure::Http, scrub("HTTP " + std::to_string(R->Status) + " from " + Url + ": " +
                                   llvm::StringRef(R->Body).trim().take_front(300).str()));
    } else {
      auto Reply = parseReply(O.Dial, R->Body);
      if (!Reply)
        return llvm::make_error<CallError>(CallFailure::Shape,
                                           scrub(llvm::toString(Reply.takeError())));
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
        // The cache is an optimization: a failure to write it is not the call's.
        llvm::consumeError(writeFileAtomic(CacheFile, scrub(C.dump(1)) + "\n", 0600));
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

} // namespace asmevo::llm
