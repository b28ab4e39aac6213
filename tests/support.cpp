#include "tests/support.hpp"

#include <atomic>
#include <random>

namespace fsicut::test {

ScratchDir::ScratchDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("fsicut-test-" + tag + "-" + std::to_string(rd()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace fsicut::test
