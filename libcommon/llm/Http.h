// One HTTP POST through libcurl, as the LLM client needs it: a JSON body, request headers, a
// total time limit, and the status, headers and whole body of the reply, read up to a size
// limit checked as it arrives (an endpoint that streams without end is cut off there, not held
// in memory). Nothing is retried here (llm/Client.h decides that) and nothing is printed.
#pragma once

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace asmevo::llm {

struct HttpReply {
  long Status = 0;
  std::map<std::string, std::string> Headers; // names lower-cased; the last of a repeated one
  std::string Body;
};

// Why a request got no reply: it ran past its time, the reply was cut short (fewer bytes than
// its Content-Length), it was larger than the limit (announced or as it came), or anything else
// (connection refused, a bad URL, ...).
enum class HttpFailure { Timeout, Truncated, TooLarge, Other };

class HttpError : public llvm::ErrorInfo<HttpError> {
public:
  static char ID;
  HttpFailure Kind;
  std::string Message;
  HttpError(HttpFailure K, std::string M) : Kind(K), Message(std::move(M)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
};

// POST Body to Url with Headers ("name: value" pairs) within TimeoutSeconds (connecting
// included), reading at most MaxReplyBytes of the reply's body. Errors are HttpError; their
// messages name the URL, never a header's value.
llvm::Expected<HttpReply> httpPost(const std::string &Url,
                                   const std::vector<std::pair<std::string, std::string>> &Headers,
                                   const std::string &Body, double TimeoutSeconds,
                                   size_t MaxReplyBytes);

// "8 MiB", "512 KiB", "100 bytes": a byte limit as messages and the manual write it.
std::string bytesText(size_t N);

} // namespace asmevo::llm
