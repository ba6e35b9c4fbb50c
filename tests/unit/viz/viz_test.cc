// The picture renderers: escaping, DOT read back by graphviz's cgraph, SVG, the HTML page.
#include <graphviz/cgraph.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "heapq/base/utf8.h"
#include "heapq/viz/escape.h"
#include "heapq/viz/picture.h"
#include "heapq/viz/report.h"

namespace heapq::viz {
namespace {

const std::string kHostile = "<script>alert(1)</script>\"'</svg>]]>\\{}|<>&amp;\n\x01\xff";

std::string printable_utf8(std::string_view s) {
  return escape_controls(s, ControlEscapes::kPicture);
}

TEST(VizEscape, PrintableUtf8) {
  EXPECT_EQ(printable_utf8("a\nb\x7f"), "a\\x0Ab\\x7F");
  EXPECT_EQ(printable_utf8("\xc3\xa9\xff\xc0\xaf"), "\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(printable_utf8("\xc2\x85"), "\\x85");  // a C1 control
  EXPECT_EQ(printable_utf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  EXPECT_EQ(printable_utf8("Leak\xe2\x80\xae"
                           "gnp"),
            "Leak\\u202egnp");  // right-to-left override
  EXPECT_EQ(printable_utf8("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");  // isolates
}

// A class named to read backwards from its override on: every picture format shows the
// override as an escape, never as the character.
TEST(VizEscape, BidiOverridesAreEscaped) {
  const std::string name =
      "Leak\xe2\x80\xae"
      "gnp.exe";
  const std::string rlo = "\xe2\x80\xae";
  EXPECT_EQ(dot_string(name), "Leak\\\\u202egnp.exe");
  EXPECT_EQ(xml_text(name), "Leak\\u202egnp.exe");
  EXPECT_EQ(script_json_string(name), "\"Leak\\\\u202egnp.exe\"");
  Picture p;
  p.caption = name;
  p.boxes.push_back({BoxKind::kRoots, "GC roots", {}});
  p.boxes.push_back({BoxKind::kHolder, name, {"0x10", name}});
  p.arrows.push_back({0, 1, name});
  const std::string dot = to_dot(p);
  EXPECT_EQ(dot.find(rlo), std::string::npos) << dot;
  EXPECT_NE(dot.find("Leak\\\\u202egnp.exe"), std::string::npos) << dot;
  auto svg = dot_to_svg(dot);
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  EXPECT_EQ(svg->find(rlo), std::string::npos);
  EXPECT_NE(svg->find("Leak\\u202egnp.exe"), std::string::npos);
}

TEST(VizEscape, Dot) {
  EXPECT_EQ(dot_string("a\"b\\n{c}|<d>&"), "a\\\"b\\\\n{c}|<d>&amp;");
}

TEST(VizEscape, Xml) {
  EXPECT_EQ(xml_text("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(VizEscape, ScriptJson) {
  EXPECT_EQ(script_json_string("</script><!--\"\\&"),
            "\"\\u003c/script\\u003e\\u003c!--\\\"\\\\\\u0026\"");
  EXPECT_EQ(script_json_string("a\xe2\x80\xa8"
                               "b"),
            "\"a\\u2028b\"");
}

Picture hostile_picture() {
  Picture p;
  p.caption = kHostile;
  p.boxes.push_back({BoxKind::kRoots, "GC roots", {}});
  p.boxes.push_back({BoxKind::kHolder, kHostile, {"0x10", kHostile}});
  p.boxes.push_back({BoxKind::kMore, "+ 1,999 more", {}});
  p.arrows.push_back({0, 1, kHostile});
  p.arrows.push_back({1, 2, ""});
  return p;
}

TEST(VizDot, ReadBackByGraphviz) {
  const std::string dot = to_dot(hostile_picture());
  Agraph_t* g = agmemread(dot.c_str());
  ASSERT_NE(g, nullptr) << dot;
  EXPECT_EQ(agnnodes(g), 3);
  EXPECT_EQ(agnedges(g), 2);
  const std::string shown = printable_utf8(kHostile);  // graphviz's label text, escapes undone
  auto unescape = [](std::string s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) out += s[i] == '\\' && i + 1 < s.size() ? s[++i] : s[i];
    for (size_t at = out.find("&amp;"); at != std::string::npos; at = out.find("&amp;", at + 1))
      out.replace(at, 5, "&");
    return out;
  };
  Agnode_t* holder = agnode(g, const_cast<char*>("n1"), 0);
  ASSERT_NE(holder, nullptr);
  EXPECT_EQ(unescape(agget(holder, const_cast<char*>("label"))), shown + "n0x10n" + shown);
  EXPECT_STREQ(agget(holder, const_cast<char*>("penwidth")), "3");
  Agedge_t* e = agfstout(g, agnode(g, const_cast<char*>("n0"), 0));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(unescape(agget(e, const_cast<char*>("label"))), shown);
  agclose(g);
}

TEST(VizSvg, TextIsEscaped) {
  auto svg = dot_to_svg(to_dot(hostile_picture()));
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  EXPECT_EQ(svg->find("<script"), std::string::npos);
  EXPECT_EQ(svg->find("]]>"), std::string::npos);
  EXPECT_NE(svg->find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg->find("</svg>"), std::string::npos);
  EXPECT_EQ(svg->find("</svg>"), svg->rfind("</svg>"));
}

TEST(VizSvg, BadDotIsAnError) {
  auto svg = dot_to_svg("digraph {");
  ASSERT_FALSE(svg.ok());
  EXPECT_NE(svg.error().message.find("graphviz"), std::string::npos);
}

TEST(VizReport, DumpStringsAreText) {
  Report r;
  r.title = kHostile;
  r.summary.push_back({kHostile, kHostile});
  r.leaks_note = kHostile;
  r.leaks.push_back({kHostile,
                     {kHostile},
                     {kHostile, {kHostile}, {false}, {{{kHostile, {}}}}},
                     *dot_to_svg(to_dot(hostile_picture()))});
  r.tables.push_back({kHostile, {kHostile, "n"}, {false, true}, {{{kHostile, {}}, {"1", 1.0}}}});
  r.icicle.push_back({-1, kHostile, "", kHostile, kHostile, 10, 1, false});
  r.icicle.push_back({0, kHostile, "0x1", kHostile, kHostile, 5, 1, true});
  const std::string html = render_report(r);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("\\u003cscript\\u003ealert"), std::string::npos);  // in the data, as JSON
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 2u);
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++closes;
  EXPECT_EQ(closes, 2u);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);  // the SVG sits inline, without its prolog
}

}  // namespace
}  // namespace heapq::viz
