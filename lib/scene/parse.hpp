#pragma once
// Scene text to a JSON document, strictly: duplicate keys and numbers that
// overflow a double are errors naming their JSON pointer (nlohmann's DOM would
// keep the last duplicate and give 1e400 no pointer), syntax errors name the
// line and column; comments are allowed. --set overrides go through the same
// checks, with pointers below their target.
#include <string>
#include <vector>

#include "lib/scene/json_reader.hpp"
#include "lib/scene/load.hpp"

namespace fsicut::scene {

// The document of `text`; `file` names it in errors.
json parse_json(const std::string& text, const std::string& file);

// Sets each override's value (JSON, or a string when the text is not JSON) at
// its pointer in `root`.
void apply_overrides(json& root, const std::vector<Override>& overrides, const std::string& file);

}  // namespace fsicut::scene
