#include "heapq/read/source_paths.h"

#include <gtest/gtest.h>

namespace heapq {
namespace {

TEST(SourcePaths, GemOfPath) {
  EXPECT_EQ(gem_of_path("/usr/local/bundle/gems/activesupport-7.0.4/lib/active_support.rb"),
            "activesupport-7.0.4");
  EXPECT_EQ(gem_of_path("/home/u/.gem/ruby/3.1.0/gems/net-http-0.3.2/lib/net/http.rb"),
            "net-http-0.3.2");
  EXPECT_EQ(gem_of_path("/gems/nokogiri-1.13.8-x86_64-linux/lib/x.rb"),
            "nokogiri-1.13.8-x86_64-linux");
  EXPECT_EQ(gem_of_path("/app/vendor/bundle/ruby/3.1.0/gems/rack-2.2.3/lib/rack.rb"), "rack-2.2.3");
  EXPECT_EQ(gem_of_path("/usr/lib/ruby/3.1.0/set.rb"), "(ruby)");
  EXPECT_EQ(gem_of_path("<internal:kernel>"), "(ruby)");
  EXPECT_EQ(gem_of_path("/srv/app/gems/readme.rb"), "(app)");
  EXPECT_EQ(gem_of_path("app/models/user.rb"), "(app)");
  // Debian packages libraries without versions in their paths.
  EXPECT_EQ(gem_of_path("/usr/lib/ruby/vendor_ruby/rack/request.rb"), "rack");
  EXPECT_EQ(gem_of_path("/usr/lib/ruby/vendor_ruby/rack.rb"), "rack");
  EXPECT_FALSE(is_app_path("/usr/lib/ruby/vendor_ruby/rack.rb"));
  // memprof's own files are never the application's, wherever it was loaded from.
  EXPECT_EQ(gem_of_path("/work/build/dumper/ext/memprof.rb"), "memprof");
  EXPECT_EQ(gem_of_path("/work/build/dumper/ext/memprof/signal.rb"), "memprof");
  EXPECT_FALSE(is_app_path("/srv/app/lib/memprof/signal.rb", "/srv/app"));
  EXPECT_TRUE(is_app_path("/srv/app/models/memprofile.rb"));
  EXPECT_TRUE(is_app_path("/srv/app/memprof/notes.txt"));
  EXPECT_TRUE(is_app_path("app/models/user.rb"));
  // --app-root: under it (or relative), outside gems.
  EXPECT_TRUE(is_app_path("/srv/app/models/user.rb", "/srv/app/"));
  EXPECT_TRUE(is_app_path("config.ru", "/srv/app"));
  EXPECT_FALSE(is_app_path("/srv/application/x.rb", "/srv/app"));
  EXPECT_FALSE(is_app_path("/opt/tools/x.rb", "/srv/app"));
  EXPECT_FALSE(
      is_app_path("/srv/app/vendor/bundle/ruby/3.1.0/gems/rack-2.2.3/lib/rack.rb", "/srv/app"));
  EXPECT_EQ(split_gem("net-http-0.3.2"),
            (std::pair<std::string_view, std::string_view>{"net-http", "0.3.2"}));
  EXPECT_EQ(split_gem("(app)").second, "");
}

TEST(SourcePaths, LibraryPath) {
  EXPECT_EQ(library_path("/app/vendor/bundle/ruby/3.1.0/gems/rack-2.2.3/lib/rack/lint.rb"),
            "rack-2.2.3/lib/rack/lint.rb");
  EXPECT_EQ(library_path("/usr/lib/ruby/3.1.0/set.rb"), "ruby/3.1.0/set.rb");
  EXPECT_EQ(library_path("/usr/lib/ruby/vendor_ruby/active_support/notifications/fanout.rb"),
            "vendor_ruby/active_support/notifications/fanout.rb");
  EXPECT_EQ(library_path("/srv/app/gems/readme.rb"), "/srv/app/gems/readme.rb");
  EXPECT_EQ(library_path("app/models/user.rb"), "app/models/user.rb");
  EXPECT_EQ(library_path(""), "");
}

}  // namespace
}  // namespace heapq
