#include <gtest/gtest.h>

#include "heapq/store/store.h"
#include "pg_url.h"

namespace heapq::store {
namespace {

// Every form of password libpq reads, replaced in the URL and in messages that quote it.
TEST(ServerUrl, EveryPasswordIsRedacted) {
  EXPECT_EQ(redact_url("postgresql://u:pa#ss1@/db"), "postgresql://u:***@/db");
  EXPECT_EQ(redact_url("postgresql://u:p/w@host/db"), "postgresql://u:***@host/db")
      << "libpq refuses a '/' before the '@', and quotes the URL";
  EXPECT_EQ(redact_url("postgresql://u:pa?ss@host/db"), "postgresql://u:***@host/db");
  EXPECT_EQ(redact_url("postgres://u@h/db?password=ab#cd2"), "postgres://u@h/db?password=***");
  EXPECT_EQ(redact_url("postgresql://h/db?pass%77ord=s3&user=u"),
            "postgresql://h/db?pass%77ord=***&user=u");
  EXPECT_EQ(redact_url("postgresql://h/db?sslpassword=k&password=p#4"),
            "postgresql://h/db?sslpassword=***&password=***#4");
  EXPECT_EQ(redact_url("postgresql://h/db?%zz=v"), "postgresql://h/db?%zz=***")
      << "a key libpq cannot read hides its value all the same";
  EXPECT_EQ(redact_url("postgresql://u@h/db?host=/tmp#12"), "postgresql://u@h/db?host=/tmp#12");
}

TEST(ServerUrl, MessagesLoseTheSecretAsWrittenAndDecoded) {
  const UrlSecrets url("postgresql://u:q%41q5@/db?password=sec%zzret4");
  EXPECT_EQ(url.scrub("invalid percent-encoded token: \"sec%zzret4\""),
            "invalid percent-encoded token: \"***\"");
  EXPECT_EQ(url.scrub("password qAq5 and q%41q5"), "password *** and ***");
  EXPECT_EQ(url.redacted().find("sec"), std::string::npos);
}

}  // namespace
}  // namespace heapq::store
