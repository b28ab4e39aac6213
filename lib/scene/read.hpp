#pragma once
// From a parsed scene document to SceneDesc (lib/scene/scene.hpp): every key
// read, range-checked and rejected when unknown, with the JSON pointer of the
// value in every error. Relative paths are resolved against `directory`.
#include <string>

#include "lib/scene/json_reader.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::scene {

// Which keys a shape has: fluid regions have `velocity`, obstacles
// `inside_out`, pinned regions neither (and no "obj" type), sources
// `velocity`, `from` and `until`, drains `from` and `until`.
enum ShapeUse { FLUID_REGION, OBSTACLE, PINNED, SOURCE, DRAIN };

Scene read_scene(const json& root, const std::string& file, const std::string& directory);

}  // namespace fsicut::scene
