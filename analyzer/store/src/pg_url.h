// A server's URL as messages may show it: every password it holds, in every form libpq reads
// (user:PASSWORD@, ?password=, ?sslpassword=, keys written with %-escapes), replaced by ***,
// in the URL and in any message that quotes it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heapq::store {

class UrlSecrets {
 public:
  UrlSecrets() = default;
  explicit UrlSecrets(std::string_view url);

  // The URL with each secret replaced by "***".
  const std::string& redacted() const { return redacted_; }
  // `message` with every secret of the URL, as written or decoded, replaced by "***".
  std::string scrub(std::string_view message) const;

 private:
  std::string raw_;  // the URL as given, without a dump's number
  std::string redacted_;
  std::string bare_redacted_;         // without the dump's number
  std::vector<std::string> secrets_;  // longest first
};

}  // namespace heapq::store
