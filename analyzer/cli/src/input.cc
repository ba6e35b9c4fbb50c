#include "input.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "heapq/render/terminal_text.h"
#include "output.h"

namespace heapq::cli {

namespace {

// The width of the terminal stderr is (80 if it does not say).
size_t terminal_columns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return render::kDefaultWidth;
}

// A one-line progress bar on stderr, redrawn at most ten times a second.
class ProgressBar {
 public:
  explicit ProgressBar(const std::string& name) : name_(escape_controls(name)) {}
  ~ProgressBar() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
  }
  void update(uint64_t done, uint64_t total) {
    auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    char figures[64];
    if (total > 0)
      std::snprintf(figures, sizeof figures, " %3d%% (%llu of %llu MiB)",
                    static_cast<int>(done * 100 / total),
                    static_cast<unsigned long long>(done >> 20),
                    static_cast<unsigned long long>(total >> 20));
    else
      std::snprintf(figures, sizeof figures, " (%llu MiB)",
                    static_cast<unsigned long long>(done >> 20));
    // One line, or \r would go back to the start of its last row only: the name is cut to fit.
    const std::string_view prefix = "heapq: reading ";
    const size_t used = prefix.size() + std::string_view(figures).size() + 1;
    const size_t columns = terminal_columns();
    const std::string name = render::fit_width(name_, columns > used + 10 ? columns - used : 10);
    std::fprintf(stderr, "\r%s%s%s\033[K", prefix.data(), name.c_str(), figures);
  }

 private:
  std::string name_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

void print_warnings(const LoadedDump& dump) {
  for (const std::string& w : load_warnings(dump))
    std::fprintf(stderr, "heapq: warning: %s\n", escape_controls(w).c_str());
}

}  // namespace

InputOptions input_options(const GlobalOptions& global) {
  InputOptions options;
  options.strict = global.strict;
  options.threads = global.threads;
  options.max_line_mib = global.max_line_mib;
  options.app_root = global.app_root;
  if (!global.quiet) {
    if (isatty(STDERR_FILENO))
      options.progress = [](const std::string& path) -> std::function<void(uint64_t, uint64_t)> {
        auto bar = std::make_shared<ProgressBar>(path);
        return [bar](uint64_t done, uint64_t total) { bar->update(done, total); };
      };
    options.loaded = print_warnings;
    options.note = [](const std::string& note) {
      std::fprintf(stderr, "heapq: %s\n", escape_controls(note).c_str());
    };
  }
  return options;
}

}  // namespace heapq::cli
