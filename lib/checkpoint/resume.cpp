#include "lib/checkpoint/resume.hpp"

#include "lib/checkpoint/files.hpp"
#include "lib/core/log.hpp"

namespace fsicut::checkpoint {
namespace fs = std::filesystem;

std::optional<Found> newest_intact(const fs::path& folder) {
  std::vector<fs::path> unusable;
  for (const fs::path& file : list(folder)) {
    try {
      std::string bytes = read_bytes(file);
      const Info info = inspect(bytes, file.string());
      return Found{file, std::move(bytes), info, std::move(unusable)};
    } catch (const CorruptError& e) {
      log::warn(std::string("skipping a checkpoint: ") + e.what());
      unusable.push_back(file);
    }
  }
  return std::nullopt;
}

}  // namespace fsicut::checkpoint
