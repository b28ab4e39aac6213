#pragma once
// Diagnostics go to stderr (stdout belongs to the CLI's own output, e.g. --validate).
#include <string>

namespace fsicut::log {

enum class Level { quiet = 0, info = 1, verbose = 2 };

void set_level(Level level);
Level level();

void warn(const std::string& message);     // shown unless quiet
void info(const std::string& message);     // shown at info and verbose
void verbose(const std::string& message);  // shown at verbose only

}  // namespace fsicut::log
