// SVG through graphviz's dot program, run as a child process: graphviz's library keeps
// process-wide font caches that outlive its contexts (a use-after-free in 2.42 when a second
// context lays out text), and a crash in it must not take heapq down.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "heapq/viz/picture.h"

extern char** environ;

namespace heapq::viz {

namespace {

// Feeds `input` to the child's stdin and collects its stdout and stderr, all at once so that
// neither side blocks on a full pipe. stdin is a socket so that a child that exits early
// gives EPIPE (MSG_NOSIGNAL), not SIGPIPE.
void exchange(int to_child, int from_child, int errors_from_child, std::string_view input,
              std::string& out, std::string& err) {
  size_t written = 0;
  if (input.empty()) close(to_child), to_child = -1;
  char buf[65536];
  while (from_child >= 0 || errors_from_child >= 0) {
    pollfd fds[3] = {
        {to_child, POLLOUT, 0}, {from_child, POLLIN, 0}, {errors_from_child, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (to_child >= 0 && fds[0].revents) {
      const ssize_t n =
          send(to_child, input.data() + written, input.size() - written, MSG_NOSIGNAL);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();
      if (written == input.size()) close(to_child), to_child = -1;
    }
    int* readers[2] = {&from_child, &errors_from_child};
    std::string* sinks[2] = {&out, &err};
    for (int i = 0; i < 2; ++i) {
      if (*readers[i] < 0 || !fds[i + 1].revents) continue;
      const ssize_t n = read(*readers[i], buf, sizeof buf);
      if (n > 0)
        sinks[i]->append(buf, static_cast<size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        close(*readers[i]), *readers[i] = -1;
    }
  }
  if (to_child >= 0) close(to_child);
}

}  // namespace

Result<std::string> dot_to_svg(std::string_view dot, std::string_view instead) {
  const std::string install = "install graphviz (apt-get install graphviz)" +
                              (instead.empty() ? "" : ", or " + std::string(instead));
  int input[2], output[2], errors[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0)
    return io_error("cannot start graphviz: no socket");
  if (pipe2(output, O_CLOEXEC) != 0 || pipe2(errors, O_CLOEXEC) != 0) {
    close(input[0]), close(input[1]);
    return io_error("cannot start graphviz: no pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input[1], 0);
  posix_spawn_file_actions_adddup2(&actions, output[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errors[1], 2);
  char program[] = "dot", format[] = "-Tsvg";
  char* argv[] = {program, format, nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "dot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(input[1]), close(output[1]), close(errors[1]);
  if (spawned != 0) {
    close(input[0]), close(output[0]), close(errors[0]);
    return io_error(std::string("graphviz's dot cannot run (") + std::strerror(spawned) +
                    "): " + install);
  }
  std::string svg, messages;
  exchange(input[0], output[0], errors[0], dot, svg, messages);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg.empty()) {
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
      return io_error("graphviz's dot cannot run: " + install);
    return io_error("graphviz's dot failed" + (messages.empty() ? std::string() : ": " + messages));
  }
  return svg;
}

}  // namespace heapq::viz
