#pragma once
// Choosing the checkpoint a run resumes from: the newest one in the output
// folder that is intact.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lib/checkpoint/format.hpp"

namespace fsicut::checkpoint {

struct Found {
  std::filesystem::path file;                   // the newest intact checkpoint
  std::string bytes;                            // its content, inspected
  Info info;
  std::vector<std::filesystem::path> unusable;  // newer ones that could not be used
};

// The newest checkpoint of `folder` (files.hpp list) that can be read and
// passes inspect (header, sizes, hash). Unreadable, truncated or corrupted
// ones are skipped with a warning naming the reason and listed in
// Found::unusable; the caller deletes them once it has restored the one found
// (they would shadow it in pruning and confuse the next resume). Nothing when
// no usable checkpoint exists.
std::optional<Found> newest_intact(const std::filesystem::path& folder);

// What a resumed run continued from.
struct Resumed {
  std::filesystem::path file;        // the checkpoint restored
  Info info;
  std::vector<std::string> changed;  // scene keys that changed (only with --force)
};

}  // namespace fsicut::checkpoint
