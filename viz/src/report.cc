#include "heapq/viz/report.h"

#include <cstdio>
#include <random>

#include "heapq/viz/escape.h"
#include "viz/assets.h"

namespace heapq::viz {

namespace {

std::string nonce() {
  std::random_device random;
  std::string out;
  for (int i = 0; i < 4; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(random()));
    out += buf;
  }
  return out;
}

// Graphviz's SVG without its XML prolog and doctype, ready to sit inside HTML. Its text is
// graphviz's, escaped by graphviz from labels we escaped for DOT; ids are ours (n0, n1...).
std::string inline_svg(const std::string& svg) {
  const size_t start = svg.find("<svg");
  return start == std::string::npos ? std::string() : svg.substr(start);
}

void render_table(const Table& t, std::string& out) {
  out += "<table class=\"sortable\"><caption>" + xml_text(t.caption) + "</caption><thead><tr>";
  for (size_t c = 0; c < t.header.size(); ++c)
    out += std::string("<th") + (t.numeric[c] ? " class=\"num\"" : "") + " tabindex=\"0\">" +
           xml_text(t.header[c]) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      out += "<td";
      if (c < t.numeric.size() && t.numeric[c]) out += " class=\"num\"";
      if (row[c].sort_key) out += " data-sort=\"" + std::to_string(*row[c].sort_key) + "\"";
      out += ">" + xml_text(row[c].text) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
}

void render_icicle_json(const std::vector<IcicleNode>& nodes, std::string& out) {
  out += "{\"icicle\":[";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const IcicleNode& n = nodes[i];
    if (i) out += ",\n";
    out += "[" + std::to_string(n.parent) + "," + script_json_string(n.name) + "," +
           script_json_string(n.address) + "," + script_json_string(n.site) + "," +
           script_json_string(n.edge) + "," + std::to_string(n.bytes) + "," +
           std::to_string(n.count) + "," + (n.more ? "1" : "0") + "]";
  }
  out += "]}";
}

}  // namespace

std::string render_report(const Report& r) {
  const std::string n = nonce();
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
      "style-src 'unsafe-inline'; script-src 'nonce-" +
      n +
      "'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      xml_text(r.title) + "</title>\n<style>" + std::string(kReportCss) +
      "</style></head>\n<body>\n<header><h1>" + xml_text(r.title) +
      "</h1></header>\n<main>\n<section id=\"summary\"><h2>Summary</h2><dl>\n";
  for (const auto& [label, value] : r.summary)
    out += "<dt>" + xml_text(label) + "</dt><dd>" + xml_text(value) + "</dd>\n";
  out += "</dl></section>\n<section id=\"leaks\"><h2>Leaks</h2>\n<p>" + xml_text(r.leaks_note) +
         "</p>\n";
  for (size_t i = 0; i < r.leaks.size(); ++i) {
    const LeakSection& s = r.leaks[i];
    out += "<article class=\"leak\"><h3>" + std::to_string(i + 1) + ". " + xml_text(s.heading) +
           "</h3><ul>";
    for (const std::string& f : s.facts) out += "<li>" + xml_text(f) + "</li>";
    out += "</ul>\n";
    if (!s.holds.rows.empty()) render_table(s.holds, out);
    if (!s.svg.empty()) out += "<div class=\"tree\">" + inline_svg(s.svg) + "</div>\n";
    out += "</article>\n";
  }
  out += "</section>\n";
  for (const Section& s : r.sections) {
    out += "<section id=\"" + xml_text(s.id) + "\"><h2>" + xml_text(s.heading) + "</h2>\n<p>" +
           xml_text(s.note) + "</p>\n";
    for (const Table& t : s.tables) render_table(t, out);
    out += "</section>\n";
  }
  out +=
      "<section id=\"dominators\"><h2>Dominator tree</h2>\n"
      "<p class=\"help\">Each box is an object and everything it keeps alive (its retained size "
      "sets the width). "
      "Click a box to zoom in, the top bar or a crumb to zoom out; hover for details.</p>\n"
      "<nav id=\"crumbs\" aria-label=\"zoom path\"></nav><div id=\"icicle\" role=\"tree\"></div>"
      "<div id=\"tip\" hidden></div>\n</section>\n<section id=\"tables\"><h2>Top classes and "
      "sites</h2>\n"
      "<p class=\"help\">Click a column's heading to sort by it.</p>\n";
  for (const Table& t : r.tables) render_table(t, out);
  out += "</section>\n</main>\n<script type=\"application/json\" id=\"heapq-data\">";
  render_icicle_json(r.icicle, out);
  out += "</script>\n<script nonce=\"" + n + "\">" + std::string(kReportJs) +
         "</script>\n</body></html>\n";
  return out;
}

}  // namespace heapq::viz
