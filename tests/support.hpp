#pragma once
// Shared helpers for tests: paths into the source tree and scratch folders.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
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

// The exit code (-1 when fsicut did not exit normally, e.g. died of a signal)
// and the output of one fsicut run.
struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Whether `part` stands anywhere in `s`.
inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Runs `fsicut args` through the shell, its stdout and stderr captured in `dir`.
inline RunResult run_fsicut(const ScratchDir& dir, const std::string& args) {
  const std::string cmd = quoted(fsicut_exe().string()) + " " + args + " >" + quoted((dir / "stdout.txt").string()) +
                          " 2>" + quoted((dir / "stderr.txt").string());
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir / "stdout.txt");
  r.err = read_file(dir / "stderr.txt");
  return r;
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
