#pragma once
// Shared helpers for tests: paths into the source tree and scratch folders.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
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

// The whole file as bytes ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `f`, expecting an exception of type E whose message contains every
// fragment in `parts`; prints the message and returns it.
template <class E, class F>
std::string require_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL("no exception thrown");
  } catch (const E& e) {
    const std::string what = e.what();
    MESSAGE(what);
    for (const std::string& p : parts) CHECK_MESSAGE(what.find(p) != std::string::npos, "missing '" << p << "'");
    return what;
  }
  return {};
}

}  // namespace fsicut::test
