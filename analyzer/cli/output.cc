#include "cli/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/terminal_text.h"
#include "heapq/store.h"
#include "heapq/temp_file.h"
#include "heapq/utf8.h"

namespace heapq::cli {

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string counted(uint64_t n, std::string_view one, std::string_view many) {
  return format_count(n) + " " + std::string(n == 1 ? one : many);
}

std::string format_bytes(uint64_t n) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) return std::to_string(n) + " B";
  double v = static_cast<double>(n);
  int unit = 0;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf,
                v < 10    ? "%.2f %s"
                : v < 100 ? "%.1f %s"
                          : "%.0f %s",
                v, kUnits[unit]);
  return buf;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> numeric)
    : numeric_(std::move(numeric)), width_(header.size(), 0) {
  add(std::move(header));
}

void TextTable::add(std::vector<std::string> row) {
  for (size_t i = 0; i < row.size(); ++i) {
    row[i] = escape_controls(row[i]);
    if (i < width_.size()) width_[i] = std::max(width_[i], display_width(row[i]));
  }
  rows_.push_back(std::move(row));
}

namespace {

// The table a row at a time: "name  value" lines, a blank line between rows.
std::string render_rows(const std::vector<std::vector<std::string>>& rows, size_t width) {
  const std::vector<std::string>& header = rows.front();
  size_t label = 0;
  for (const std::string& h : header) label = std::max(label, display_width(h));
  label = std::min(label, width / 3);
  std::string out;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (r > 1) out += "\n";
    for (size_t i = 0; i < rows[r].size() && i < header.size(); ++i) {
      std::string name = fit_width(header[i], label);
      name.append(label - display_width(name), ' ');
      out += name + "  " + fit_width(rows[r][i], width - label - 2) + "\n";
    }
  }
  return out;
}

}  // namespace

std::string TextTable::render(size_t limit) const {
  std::vector<size_t> width = width_;
  if (limit) {
    size_t total = 2 * (width.size() - std::min<size_t>(width.size(), 1));
    for (size_t w : width) total += w;
    // Narrow the widest text column, step by step, until the table fits.
    while (total > limit) {
      size_t widest = SIZE_MAX;
      for (size_t i = 0; i < width.size(); ++i)
        if (!numeric_[i] && width[i] > kMinTextWidth &&
            (widest == SIZE_MAX || width[i] > width[widest]))
          widest = i;
      if (widest == SIZE_MAX) break;
      size_t second = kMinTextWidth;
      for (size_t i = 0; i < width.size(); ++i)
        if (i != widest && !numeric_[i])
          second = std::max(second, std::min(width[i], width[widest]));
      const size_t cut = std::min(total - limit, std::max<size_t>(width[widest] - second, 1));
      width[widest] -= cut;
      total -= cut;
    }
    if (total > limit) return render_rows(rows_, limit);
  }
  std::string out;
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      const size_t cell_width = display_width(row[i]);
      const bool cut = cell_width > width[i];
      const size_t pad = cut ? 0 : width[i] - cell_width;
      const bool last = i + 1 == row.size();
      if (i > 0) out += "  ";
      if (numeric_[i]) out.append(pad, ' ');
      out += cut ? fit_width(row[i], width[i]) : row[i];
      if (!numeric_[i] && !last) out.append(pad, ' ');
    }
    out += '\n';
  }
  return out;
}

void json_key(JsonWriter& w, std::string_view key) {
  if (valid_utf8(key)) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    return;
  }
  std::string repaired = repair_utf8(key);
  w.Key(repaired.data(), static_cast<rapidjson::SizeType>(repaired.size()));
}

void json_string(JsonWriter& w, std::string_view s) {
  if (valid_utf8(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return;
  }
  std::string repaired = repair_utf8(s);
  w.String(repaired.data(), static_cast<rapidjson::SizeType>(repaired.size()));
}

void write_input_json(JsonWriter& w, const LoadedDump& dump) {
  json_key(w, "input");
  write_input_object(w, dump);
}

void write_input_object(JsonWriter& w, const LoadedDump& dump) {
  const LoadReport& r = dump.report;
  w.StartObject();
  json_key(w, "path");
  json_string(w, dump.path);
  json_key(w, "format");
  json_string(w, r.format == DumpFormat::kMemprof ? "memprof" : "objectspace");
  json_key(w, "lines");
  w.Uint64(r.lines);
  json_key(w, "objects");
  w.Uint64(r.objects);
  json_key(w, "roots");
  w.Uint64(r.roots);
  json_key(w, "shapes");
  w.Uint64(r.shapes);
  json_key(w, "bad_lines");
  w.Uint64(r.bad_lines);
  json_key(w, "repaired_strings");
  w.Uint64(r.repaired_strings);
  json_key(w, "dangling_references");
  w.Uint64(r.dangling_references);
  json_key(w, "references_read");
  w.Bool(r.references_read);
  json_key(w, "dangling_classes");
  w.Uint64(r.dangling_classes);
  json_key(w, "duplicate_addresses");
  w.Uint64(r.duplicate_addresses);
  json_key(w, "warnings");
  w.StartArray();
  for (const std::string& s : load_warnings(dump)) json_string(w, s);
  w.EndArray();
  w.EndObject();
}

bool emit(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "heapq: cannot write the output: %s\n", std::strerror(errno));
    return false;
  }
  return true;
}

bool emit_text(std::string_view text) {
  return emit(fit_lines(escape_controls_keep_lines(text), output_width()));
}

bool emit_json(const rapidjson::StringBuffer& buffer) {
  return emit(std::string_view(buffer.GetString(), buffer.GetSize())) && emit("\n");
}

namespace {

// Whether the whole of contents went to fd, which is closed (errno says why not).
bool write_whole(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      errno = error;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return ::close(fd) == 0;
}

}  // namespace

Status write_file(const std::string& path, std::string_view contents, bool quiet) {
  struct stat st;
  bool written = false;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or FIFO (/dev/stdout): written in place, nothing to rename.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    written = fd >= 0 && write_whole(fd, contents);
  } else {
    // Beside the file, created exclusively, then renamed over it: rename(2) replaces a symlink
    // at `path` itself, never the file it points to.
    auto temp = create_temp_beside(path);
    if (!temp) return io_error("cannot write " + escape_controls(temp.error().message));
    written = write_whole(temp->fd, contents) && std::rename(temp->path.c_str(), path.c_str()) == 0;
    if (!written) {
      const int error = errno;
      std::remove(temp->path.c_str());
      errno = error;
    }
  }
  if (!written)
    return io_error("cannot write " + escape_controls(path) + ": " + std::strerror(errno));
  if (!quiet) std::fprintf(stderr, "heapq: wrote %s\n", escape_controls(path).c_str());
  return Ok{};
}

Status refuse_output_over_inputs(const std::string& output,
                                 const std::vector<std::string>& inputs) {
  struct stat out;
  if (output.empty() || ::stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return Ok{};
  for (const std::string& input : inputs) {
    struct stat in;
    if (input == "-" || ::stat(parse_store_ref(input).file.c_str(), &in) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return usage_error(escape_controls(output) + " is also an input (" + escape_controls(input) +
                         "); write the output elsewhere");
  }
  return Ok{};
}

}  // namespace heapq::cli
