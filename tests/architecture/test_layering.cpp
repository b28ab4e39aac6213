// The architecture as a contract (docs/architecture.md): lib/'s folders form
// layers, each including only the layers below it; only the driver (sim/) and
// the CLI know the scene; a file holds one concept, so none grows past
// MAX_FILE_LINES; and the tests are named so that ctest runs them. These
// tests read the source tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace fs = std::filesystem;

namespace {

// Bottom to top: a folder may include its own and the folders before it.
const std::vector<std::string> LAYERS = {"core",     "linsolve", "mesh", "grid",       "levelset", "cutcell", "solid",
                                         "fluid",    "eulerian", "coupling", "io", "checkpoint", "scene",  "sim"};

// Who may use scene types: the scene folder itself and the driver above it.
const std::vector<std::string> KNOW_THE_SCENE = {"scene", "sim"};

constexpr int MAX_FILE_LINES = 500;

int layer(const std::string& folder) {
  const auto it = std::find(LAYERS.begin(), LAYERS.end(), folder);
  return it == LAYERS.end() ? -1 : static_cast<int>(it - LAYERS.begin());
}

// The folders a source file includes from `root` ("<root>/<folder>/...").
std::vector<std::string> included_folders(const fs::path& file, const std::string& root = "lib") {
  const std::regex include("^\\s*#\\s*include\\s*\"" + root + "/([a-z_]+)/");
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, include)) out.push_back(m[1]);
  return out;
}

std::vector<fs::path> sources(const fs::path& folder) {
  std::vector<fs::path> out;
  if (!fs::exists(folder)) return out;
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".hpp" || ext == ".cpp")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("layering: every lib/ folder is a known layer and includes only itself and the layers below it") {
  const fs::path lib = fsicut::test::source_dir() / "lib";
  for (const auto& entry : fs::directory_iterator(lib)) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    INFO("lib/" << folder);
    REQUIRE(layer(folder) >= 0);
    for (const fs::path& file : sources(entry.path()))
      for (const std::string& used : included_folders(file)) {
        INFO(file.lexically_relative(lib).string() << " includes lib/" << used);
        CHECK(layer(used) >= 0);
        CHECK(layer(used) <= layer(folder));
      }
  }
}

TEST_CASE("layering: only the driver knows the scene, in the library and in the tests of the layers below it") {
  const fs::path root = fsicut::test::source_dir();
  for (const std::string& folder : LAYERS) {
    if (std::find(KNOW_THE_SCENE.begin(), KNOW_THE_SCENE.end(), folder) != KNOW_THE_SCENE.end()) continue;
    for (const fs::path& dir : {root / "lib" / folder, root / "tests" / folder})
      for (const fs::path& file : sources(dir))
        for (const std::string& used : included_folders(file)) {
          INFO(file.lexically_relative(root).string() << " includes lib/" << used);
          CHECK(used != "scene");
          CHECK(used != "sim");
        }
    // Nor through the helpers of the driver's tests.
    for (const fs::path& file : sources(root / "tests" / folder))
      for (const std::string& used : included_folders(file, "tests")) {
        INFO(file.lexically_relative(root).string() << " includes tests/" << used);
        CHECK(used != "scene");
        CHECK(used != "sim");
        CHECK(used != "app");
      }
  }
}

TEST_CASE("layering: no file in lib/ holds more than MAX_FILE_LINES lines") {
  const fs::path lib = fsicut::test::source_dir() / "lib";
  for (const fs::path& file : sources(lib)) {
    std::ifstream in(file);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    INFO(file.lexically_relative(lib).string() << ": " << lines << " lines");
    CHECK(lines < MAX_FILE_LINES);
  }
}

TEST_CASE("test names: none holds a semicolon, where ctest would cut the name and run no test") {
  // doctest_discover_tests registers each test case under its name; CMake
  // splits lists at ';', so a name with one became a ctest test whose filter
  // matched nothing and passed without running.
  static const std::regex test_case(R"re(TEST_CASE\s*\(\s*"([^"]*)")re");
  for (const fs::path& file : sources(fsicut::test::source_dir() / "tests")) {
    std::ifstream in(file);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, test_case)) {
        INFO(file.filename().string() << ": " << m[1]);
        CHECK(m[1].str().find(';') == std::string::npos);
      }
  }
}

TEST_CASE("layering: sim/ is a driver and two simulators, and only sim/build.cpp chooses between them") {
  // sim/*.{hpp,cpp} is the driver; sim/cutcell and sim/eulerian are the two
  // Simulator implementations (docs/architecture.md, "sim/").
  const fs::path sim = fsicut::test::source_dir() / "lib" / "sim";
  const std::regex include(R"re(^\s*#\s*include\s*"lib/sim/(cutcell|eulerian)/)re");
  const std::regex chooses(R"re(Scheme::eulerian)re");
  int choices = 0;
  for (const fs::path& file : sources(sim)) {
    const std::string relative = file.lexically_relative(sim).generic_string();
    const std::string folder = relative.find('/') == std::string::npos ? "" : relative.substr(0, relative.find('/'));
    std::ifstream in(file);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, chooses)) ++choices;
      if (!std::regex_search(line, m, include)) continue;
      INFO("lib/sim/" << relative << " includes lib/sim/" << m[1] << "/");
      if (folder.empty()) CHECK(relative == "build.cpp");
      else CHECK(folder == m[1]);
    }
  }
  // The issue's bound: at most two places in lib/sim ask which simulator runs.
  INFO("places in lib/sim that name the eulerian scheme: " << choices);
  CHECK(choices >= 1);
  CHECK(choices <= 2);
}
