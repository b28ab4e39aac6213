#include "lib/scene/load.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/scene/parse.hpp"
#include "lib/scene/read.hpp"

namespace fsicut::scene {

namespace fs = std::filesystem;

Override parse_override(const std::string& argument) {
  const auto eq = argument.find('=');
  if (argument.empty() || argument[0] != '/' || eq == std::string::npos || eq == 1)
    throw SceneError("--set", argument, "expected /json/pointer=value, e.g. --set /solids/0/density=800");
  return {argument.substr(0, eq), argument.substr(eq + 1)};
}

Scene parse_scene(const std::string& text, const std::string& file, const std::string& directory,
                  const std::vector<Override>& overrides) {
  json root = parse_json(text, file);
  apply_overrides(root, overrides, file);
  return read_scene(root, file, directory);
}

Scene load_scene(const std::string& path, const std::vector<Override>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path)) throw MissingInputError(path + ": cannot read scene file");
  std::stringstream text;
  text << in.rdbuf();
  const fs::path dir = fs::absolute(fs::path(path)).parent_path();
  return parse_scene(text.str(), path, dir.lexically_normal().string(), overrides);
}

}  // namespace fsicut::scene
