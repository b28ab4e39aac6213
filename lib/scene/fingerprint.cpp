#include "lib/scene/fingerprint.hpp"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "lib/scene/load.hpp"

namespace fsicut::scene {

namespace {

using json = nlohmann::json;

// Keys that may differ between a run and its resume (see fingerprint);
// checkpoints written before the last two keys existed lack them.
const char* const VOLATILE_KEYS[] = {"/output/directory", "/output/checkpoint_every", "/output/checkpoint_keep",
                                     "/time/frames", "/coupling/preconditioner", "/strict",
                                     "/on_absurd"};

// Flattens JSON into pointer -> value text (arrays of numbers stay whole, so a
// changed vector reads as one key).
void flatten(const json& j, const std::string& pointer, std::map<std::string, std::string>& out) {
  const bool leaf_array =
      j.is_array() && std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_primitive(); });
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), pointer + "/" + it.key(), out);
  } else if (j.is_array() && !leaf_array) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], pointer + "/" + std::to_string(i), out);
  } else {
    out[pointer] = j.dump();
  }
}

}  // namespace

std::string fingerprint(const Scene& scene) {
  json j = json::parse(to_json(scene));
  for (const char* key : VOLATILE_KEYS) {
    const json::json_pointer p(key);
    if (j.contains(p)) j[p.parent_pointer()].erase(p.back());
  }
  return j.dump();
}

std::vector<std::string> changed_keys(const std::string& old_fingerprint, const std::string& new_fingerprint) {
  std::map<std::string, std::string> a, b;
  flatten(json::parse(old_fingerprint), "", a);
  flatten(json::parse(new_fingerprint), "", b);
  std::vector<std::string> changed;
  for (const auto& [key, value] : a) {
    const auto it = b.find(key);
    if (it == b.end()) changed.push_back(key + ": " + value + " -> (absent)");
    else if (it->second != value) changed.push_back(key + ": " + value + " -> " + it->second);
  }
  for (const auto& [key, value] : b)
    if (!a.count(key)) changed.push_back(key + ": (absent) -> " + value);
  return changed;
}

}  // namespace fsicut::scene
