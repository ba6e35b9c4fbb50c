#include "pg_url.h"

#include <libpq-fe.h>

#include <algorithm>
#include <optional>

#include "heapq/store/store.h"

namespace heapq {
namespace store {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded as libpq decodes a URI's parts; nullopt where it would refuse the text.
std::optional<std::string> percent_decoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_digit(s[i + 1]), lo = hex_digit(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Whether out[at, at + n) lies between two quotes of one line.
bool quoted(std::string_view out, size_t at, size_t n) {
  const size_t open = out.find_last_of("\"\n", at == 0 ? 0 : at - 1);
  const size_t close = out.find_first_of("\"\n", at + n);
  return open != std::string_view::npos && out[open] == '"' && close != std::string_view::npos &&
         out[close] == '"';
}

bool is_secret_key(std::string_view raw) {
  const auto key = percent_decoded(raw);
  // A key libpq cannot decode makes the URL fail; its value is kept out of messages all the same.
  return !key || *key == "password" || *key == "sslpassword";
}

// The spans of `url` that hold a password, as libpq reads a URI (fe-connect.c,
// conninfo_uri_parse_options): user:PASSWORD@ when an '@' comes before any '/' (or before the
// query: a '/' in a password makes the URL one libpq refuses, quoting it), and the value of
// each password key of the query ('#' is not special to libpq).
std::vector<std::pair<size_t, size_t>> secret_spans(std::string_view url) {
  std::vector<std::pair<size_t, size_t>> spans;
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return spans;
  size_t at = scheme + 3;
  size_t stop = url.find_first_of("@/", at);
  // A URL libpq refuses may still hold a password: user:pass/word@host is one to hide too.
  if (stop == std::string_view::npos || url[stop] != '@') stop = url.rfind('@', url.find('?', at));
  if (stop != std::string_view::npos && stop >= at) {
    const size_t colon = url.find(':', at);
    if (colon < stop) spans.emplace_back(colon + 1, stop);
    at = stop + 1;
  }
  const size_t query = url.find('?', at);
  if (query == std::string_view::npos) return spans;
  for (size_t key = query + 1; key <= url.size();) {
    const size_t end = std::min(url.find('&', key), url.size());
    const size_t eq = url.find('=', key);
    if (eq < end && is_secret_key(url.substr(key, eq - key))) spans.emplace_back(eq + 1, end);
    key = end + 1;
  }
  return spans;
}

}  // namespace

UrlSecrets::UrlSecrets(std::string_view url) {
  // A dump's number after the URL ("#3") is heapq's, not libpq's: kept as it is.
  std::string_view selector;
  if (const size_t hash = url.rfind('#');
      hash != std::string_view::npos && hash + 1 < url.size() &&
      url.find_first_not_of("0123456789", hash + 1) == std::string_view::npos) {
    selector = url.substr(hash);
    url = url.substr(0, hash);
  }
  const auto spans = secret_spans(url);
  size_t from = 0;
  for (auto [begin, end] : spans) {
    redacted_.append(url.substr(from, begin - from)).append("***");
    const std::string_view raw = url.substr(begin, end - begin);
    if (!raw.empty()) secrets_.emplace_back(raw);
    if (auto decoded = percent_decoded(raw); decoded && !decoded->empty())
      secrets_.push_back(std::move(*decoded));
    from = end;
  }
  redacted_.append(url.substr(from));
  bare_redacted_ = redacted_;
  redacted_.append(selector);
  const size_t found = secrets_.size();
  // What libpq's own parser calls a password, in case it reads a form the spans above do not.
  char* error = nullptr;
  raw_ = std::string(url);
  if (PQconninfoOption* options = PQconninfoParse(raw_.c_str(), &error)) {
    for (PQconninfoOption* o = options; o->keyword; ++o)
      if (o->val && *o->val &&
          (std::string_view(o->keyword) == "password" ||
           std::string_view(o->keyword) == "sslpassword") &&
          std::find(secrets_.begin(), secrets_.end(), o->val) == secrets_.end())
        secrets_.emplace_back(o->val);
    PQconninfoFree(options);
  }
  PQfreemem(error);
  if (secrets_.size() > found) {
    redacted_ = scrub(redacted_);
    bare_redacted_ = scrub(bare_redacted_);
  }
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string UrlSecrets::scrub(std::string_view message) const {
  std::string out(message);
  if (!raw_.empty())
    for (size_t at = 0; (at = out.find(raw_, at)) != std::string::npos; at += bare_redacted_.size())
      out.replace(at, raw_.size(), bare_redacted_);
  for (const std::string& secret : secrets_) {
    // A secret of a few characters is hidden where libpq quotes what it read ("..."): hidden
    // everywhere, it would take every word that holds those letters with it.
    const bool short_secret = secret.size() < 4;
    for (size_t at = 0; (at = out.find(secret, at)) != std::string::npos;) {
      if (short_secret && !quoted(out, at, secret.size())) {
        at += secret.size();
        continue;
      }
      out.replace(at, secret.size(), "***");
      at += 3;
    }
  }
  return out;
}

}  // namespace store

std::string redact_url(std::string_view url) {
  return store::UrlSecrets(url).redacted();
}

std::string input_name(std::string_view input) {
  return is_server_url(input) ? redact_url(input) : std::string(input);
}

}  // namespace heapq
