// Text output within the terminal's width: tables narrow their text columns, long lines wrap,
// help fits 80 columns.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "heapq/render/terminal_text.h"
#include "main_help.h"
#include "output.h"
#include "text/table.h"

namespace heapq::cli {
namespace {

using render::display_width;
using render::fit_lines;
using render::TextTable;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

size_t widest(const std::string& text) {
  size_t w = 0;
  for (const std::string& l : lines_of(text)) w = std::max(w, display_width(l));
  return w;
}

TEST(TerminalWidth, ATableNarrowsItsWidestTextColumn) {
  TextTable t({"count", "site", "class"}, {true, false, false});
  const std::string path = "/srv/app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/utils.rb:42";
  t.add({"12", path, "Hash"});
  t.add({"3", "app.rb:1", "String"});
  const std::string text = t.render(60);
  EXPECT_LE(widest(text), 60u) << text;
  EXPECT_NE(text.find("rack/utils.rb:42"), std::string::npos) << text;  // the tail is kept
  EXPECT_NE(text.find("/srv/app"), std::string::npos) << text;          // and the head
  EXPECT_NE(text.find("\u2026"), std::string::npos) << text;
  EXPECT_NE(text.find("app.rb:1"), std::string::npos);
  // No limit: the whole path.
  EXPECT_NE(t.render(0).find(path), std::string::npos);
}

// A note under a row starts at its column, widens no column, and is cut (its text, not its
// label) to the width; control characters escaped.
TEST(TerminalWidth, ANoteUnderARowWidensNoColumn) {
  TextTable t({"count", "site"}, {true, false});
  t.add({"12", "rack-2.2.3/lib/rack/utils.rb:42"});
  t.note(1, "from the app's line ", "/srv/app/controllers/cart_controller.rb:12 in add\x1b");
  t.add({"3", "app.rb:1"});
  const std::string text = t.render(60);
  EXPECT_EQ(lines_of(text).size(), 4u) << text;
  EXPECT_EQ(lines_of(text)[1], "   12  rack-2.2.3/lib/rack/utils.rb:42") << text;
  EXPECT_TRUE(lines_of(text)[2].starts_with("       from the app's line /srv/app")) << text;
  EXPECT_EQ(display_width(lines_of(text)[2]), 60u) << text;
  EXPECT_EQ(lines_of(text)[3], "    3  app.rb:1") << text;
  EXPECT_NE(t.render(0).find("cart_controller.rb:12 in add\\e\n"), std::string::npos);
  // Too narrow for the label: the whole line is cut.
  const std::string narrow = t.render(20);
  EXPECT_LE(widest(narrow), 20u) << narrow;
  EXPECT_NE(narrow.find("in add\\e\n"), std::string::npos) << narrow;
}

TEST(TerminalWidth, ATableOfTooManyNumbersGoesARowAtATime) {
  std::vector<std::string> header;
  std::vector<std::string> row;
  for (int i = 0; i < 12; ++i) {
    header.push_back("column_" + std::to_string(i));
    row.push_back(std::to_string(1000000 + i));
  }
  TextTable t(header, std::vector<bool>(12, true));
  t.add(row);
  t.add(row);
  const std::string text = t.render(80);
  EXPECT_LE(widest(text), 80u) << text;
  EXPECT_NE(text.find("column_11  1000011\n"), std::string::npos) << text;
  EXPECT_EQ(lines_of(text).size(), 12u * 2 + 1);  // a blank line between the rows
}

TEST(TerminalWidth, LongLinesWrapWithoutLosingWords) {
  const std::string path =
      "3  120 B  ROOT(vm) -> class Object Pricing -> class Pricing @memo -> Hash [\"sku-1\"] -> "
      "Pricing::Quote 0x7f3a9c0b1e28";
  const std::string text = fit_lines(path + "\nshort\n", 80);
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0], "3  120 B  ROOT(vm) -> class Object Pricing -> class Pricing @memo");
  EXPECT_EQ(lines[1], "            -> Hash [\"sku-1\"] -> Pricing::Quote 0x7f3a9c0b1e28");
  EXPECT_EQ(lines[2], "short");

  std::string prose;
  for (int i = 0; i < 40; ++i) prose += "word" + std::to_string(i) + " ";
  const std::string wrapped = fit_lines(prose, 80);
  EXPECT_LE(widest(wrapped), 80u);
  std::istringstream words(wrapped);
  std::vector<std::string> seen;
  for (std::string w; words >> w;) seen.push_back(w);
  ASSERT_EQ(seen.size(), 40u) << wrapped;
  for (int i = 0; i < 40; ++i) EXPECT_EQ(seen[i], "word" + std::to_string(i));
  // A word longer than a line loses its middle, nothing else.
  const std::string word(200, 'x');
  EXPECT_LE(widest(fit_lines("a " + word + " b", 80)), 80u);
  EXPECT_EQ(fit_lines(word, 0), word);
}

TEST(TerminalWidth, HelpFitsEightyColumns) {
  std::vector<std::vector<std::string>> runs{{"--help"}};
  for (const Command& c : commands()) runs.push_back({std::string(c.name), "--help"});
  for (const auto& args : runs) {
    testing::internal::CaptureStdout();
    EXPECT_EQ(run_heapq(args), 0);
    const std::string out = testing::internal::GetCapturedStdout();
    for (const std::string& line : lines_of(out))
      EXPECT_LE(display_width(line), 80u) << args[0] << ": " << line;
  }
}

}  // namespace
}  // namespace heapq::cli
