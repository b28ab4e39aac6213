#pragma once
// Files in and out of the fsicut executable, shared by the tests of app/.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/types.hpp"
#include "tests/support.hpp"

namespace fsicut::test {

// Writes `text` to the file `name` in `dir` and returns its path.
inline std::filesystem::path write_scene(const ScratchDir& dir, const std::string& text,
                                         const std::string& name = "scene.json") {
  const std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

// An OBJ file's vertices (its `v` lines) and its `f` lines as written.
struct Obj {
  std::vector<Vec3> vertices;
  std::vector<std::string> faces;
};

inline Obj read_obj(const std::string& text) {
  Obj o;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("v ", 0) == 0) {
      std::istringstream l(line.substr(2));
      Vec3 p;
      l >> p.x() >> p.y() >> p.z();
      o.vertices.push_back(p);
    }
    if (line.rfind("f ", 0) == 0) o.faces.push_back(line);
  }
  return o;
}

}  // namespace fsicut::test
