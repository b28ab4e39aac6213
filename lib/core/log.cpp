#include "lib/core/log.hpp"

#include <atomic>
#include <cstdio>

namespace fsicut::log {
namespace {
std::atomic<Level> current{Level::info};

void emit(const char* prefix, const std::string& message) {
  std::fprintf(stderr, "%s%s\n", prefix, message.c_str());
}
}  // namespace

void set_level(Level level) { current = level; }
Level level() { return current; }

void warn(const std::string& message) {
  if (current >= Level::info) emit("fsicut: warning: ", message);
}
void info(const std::string& message) {
  if (current >= Level::info) emit("fsicut: ", message);
}
void verbose(const std::string& message) {
  if (current >= Level::verbose) emit("fsicut: ", message);
}

}  // namespace fsicut::log
