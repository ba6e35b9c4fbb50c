#include "process_identity.h"

#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>

namespace memprof {

std::string HostName() {
  char name[HOST_NAME_MAX + 1] = "";
  if (gethostname(name, sizeof name) != 0) return "";
  name[HOST_NAME_MAX] = '\0';
  return name;
}

std::string ProcessStarted(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::string stat, boot;
  for (auto [file, text] :
       {std::pair<const char*, std::string*>{path, &stat}, {"/proc/stat", &boot}}) {
    FILE* f = fopen(file, "re");
    if (f == nullptr) return {};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0 && text->size() < (1 << 20)) text->append(buf, n);
    fclose(f);
  }
  // Field 22, starttime: the 20th after the command, which ends at the last ')'.
  const size_t comm_end = stat.rfind(')');
  if (comm_end == std::string::npos) return {};
  const char* p = stat.c_str() + comm_end + 1;
  unsigned long long ticks = 0;
  for (int field = 3; field <= 22 && *p != '\0'; ++field) {
    while (*p == ' ') ++p;
    if (field == 22) ticks = strtoull(p, nullptr, 10);
    while (*p != ' ' && *p != '\0') ++p;
  }
  const size_t at = boot.find("\nbtime ");
  const long hz = sysconf(_SC_CLK_TCK);
  if (ticks == 0 || at == std::string::npos || hz <= 0) return {};
  const time_t started =
      static_cast<time_t>(strtoull(boot.c_str() + at + 7, nullptr, 10) + ticks / hz);
  struct tm utc;
  gmtime_r(&started, &utc);
  char when[40];
  strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  return when;
}

}  // namespace memprof
