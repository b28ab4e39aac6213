#pragma once
// Shared helpers for tests: paths into the source tree and scratch folders.
#include <filesystem>
#include <string>

namespace fsicut::test {

inline std::filesystem::path source_dir() { return FSICUT_SOURCE_DIR; }
inline std::filesystem::path fsicut_exe() { return FSICUT_EXE; }

// A fresh empty folder under the system temp dir, removed when it goes out of scope.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace fsicut::test
