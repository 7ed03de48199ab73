// HTTP through libcurl (llm/Http.h).
#include "llm/Http.h"

#include "support/Error.h"

#include <curl/curl.h>

#include <cctype>
#include <mutex>

namespace asmevo::llm {

char HttpError::ID = 0;

namespace {

struct Sink {
  std::string *Body;
  size_t Max;
  bool Over = false;
};

size_t onBody(char *Data, size_t Size, size_t N, void *User) {
  Sink &S = *static_cast<Sink *>(User);
  if (S.Body->size() + Size * N > S.Max) {
    S.Over = true;
    return 0; // libcurl stops the transfer (CURLE_WRITE_ERROR)
  }
  S.Body->append(Data, Size * N);
  return Size * N;
}

size_t onHeader(char *Data, size_t Size, size_t N, void *User) {
  std::string Line(Data, Size * N);
  auto Colon = Line.find(':');
  if (Colon != std::string::npos) {
    std::string Name = Line.substr(0, Colon), Value = Line.substr(Colon + 1);
    for (char &C : Name)
      C = char(std::tolower(static_cast<unsigned char>(C)));
    while (!Value.empty() && std::isspace(static_cast<unsigned char>(Value.front())))
      Value.erase(Value.begin());
    while (!Value.empty() && std::isspace(static_cast<unsigned char>(Value.back())))
      Value.pop_back();
    (*static_cast<std::map<std::string, std::string> *>(User))[Name] = Value;
  }
  return Size * N;
}

} // namespace

llvm::Expected<HttpReply> httpPost(const std::string &Url,
                                   const std::vector<std::pair<std::string, std::string>> &Headers,
                                   const std::string &Body, double TimeoutSeconds,
                                   size_t MaxReplyBytes) {
  static std::once_flag Init;
  std::call_once(Init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL *C = curl_easy_init();
  if (!C)
    return llvm::make_error<HttpError>(HttpFailure::Other, "cannot start libcurl");
  HttpReply R;
  curl_slist *List = nullptr;
  for (const auto &[Name, Value] : Headers)
    List = curl_slist_append(List, (Name + ": " + Value).c_str());
  List = curl_slist_append(List, "Expect:"); // no 100-continue round trip
  char Why[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(C, CURLOPT_URL, Url.c_str());
  curl_easy_setopt(C, CURLOPT_POST, 1L);
  curl_easy_setopt(C, CURLOPT_POSTFIELDS, Body.data());
  curl_easy_setopt(C, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(Body.size()));
  curl_easy_setopt(C, CURLOPT_HTTPHEADER, List);
  curl_easy_setopt(C, CURLOPT_WRITEFUNCTION, onBody);
  Sink S{&R.Body, MaxReplyBytes};
  curl_easy_setopt(C, CURLOPT_WRITEDATA, &S);
  // A Content-Length past the limit fails before the body is read.
  curl_easy_setopt(C, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(MaxReplyBytes));
  curl_easy_setopt(C, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(C, CURLOPT_HEADERDATA, &R.Headers);
  curl_easy_setopt(C, CURLOPT_TIMEOUT_MS, long(TimeoutSeconds * 1000));
  curl_easy_setopt(C, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(C, CURLOPT_ERRORBUFFER, Why);
  curl_easy_setopt(C, CURLOPT_PROTOCOLS_STR, "http,https");
  CURLcode Rc = curl_easy_perform(C);
  curl_easy_getinfo(C, CURLINFO_RESPONSE_CODE, &R.Status);
  curl_slist_free_all(List);
  curl_easy_cleanup(C);
  if (Rc == CURLE_OK)
    return R;
  std::string Detail = Why[0] ? Why : curl_easy_strerror(Rc);
  HttpFailure K = S.Over || Rc == CURLE_FILESIZE_EXCEEDED ? HttpFailure::TooLarge
                  : Rc == CURLE_OPERATION_TIMEDOUT        ? HttpFailure::Timeout
                  : Rc == CURLE_PARTIAL_FILE              ? HttpFailure::Truncated
                                                          : HttpFailure::Other;
  std::string M = K == HttpFailure::TooLarge
                      ? "the reply from " + Url + " is larger than " + bytesText(MaxReplyBytes) +
                            ", the most a reply may have; it was not read further"
                  : K == HttpFailure::Timeout
                      ? "no reply from " + Url + " within " + secondsText(TimeoutSeconds) + " s"
                  : K == HttpFailure::Truncated
                      ? "the reply from " + Url + " was cut short (" +
                            std::to_string(R.Body.size()) + " bytes of its Content-Length)"
                      : "POST " + Url + ": " + Detail;
  return llvm::make_error<HttpError>(K, M);
}

std::string bytesText(size_t N) {
  if (N >= (1u << 20) && N % (1u << 20) == 0)
    return std::to_string(N >> 20) + " MiB";
  if (N >= 1024 && N % 1024 == 0)
    return std::to_string(N >> 10) + " KiB";
  return std::to_string(N) + " bytes";
}

} // namespace asmevo::llm
