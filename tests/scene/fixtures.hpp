#pragma once
// Parsing helpers shared by the tests of lib/scene.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"

namespace fsicut::test {

// The message of the SceneError, exit 65, that parsing `text` as the file
// `file` in /scenes throws ("" if none).
inline std::string scene_error(const std::string& text, const std::vector<scene::Override>& overrides = {},
                               const std::string& file = "test.json") {
  try {
    scene::parse_scene(text, file, "/scenes", overrides);
  } catch (const SceneError& e) {
    CHECK(e.code() == ExitCode::data);
    return e.what();
  }
  return "";
}

}  // namespace fsicut::test
