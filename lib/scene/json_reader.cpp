#include "lib/scene/json_reader.hpp"

#include <algorithm>
#include <filesystem>

namespace fsicut::scene {

namespace fs = std::filesystem;

std::string type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "an unsupported value";
  }
}

std::string closest_key(const std::string& key, const std::vector<std::string>& candidates) {
  // Optimal-string-alignment distance (edits and adjacent transpositions);
  // suggest only when at most about a third of the key differs.
  std::string best;
  size_t best_distance = std::max<size_t>(1, key.size() / 3) + 1;
  for (const std::string& c : candidates) {
    std::vector<std::vector<size_t>> d(key.size() + 1, std::vector<size_t>(c.size() + 1));
    for (size_t i = 0; i <= key.size(); ++i) d[i][0] = i;
    for (size_t k = 0; k <= c.size(); ++k) d[0][k] = k;
    for (size_t i = 1; i <= key.size(); ++i)
      for (size_t k = 1; k <= c.size(); ++k) {
        d[i][k] = std::min({d[i - 1][k] + 1, d[i][k - 1] + 1, d[i - 1][k - 1] + (key[i - 1] == c[k - 1] ? 0 : 1)});
        if (i > 1 && k > 1 && key[i - 1] == c[k - 2] && key[i - 2] == c[k - 1])
          d[i][k] = std::min(d[i][k], d[i - 2][k - 2] + 1);
      }
    if (d[key.size()][c.size()] < best_distance) {
      best_distance = d[key.size()][c.size()];
      best = c;
    }
  }
  return best;
}

std::string resolve_path(const std::string& path, const Where& w) {
  if (path.empty()) w.fail("path must not be empty");
  fs::path p(path);
  if (p.is_relative()) p = fs::path(w.directory) / p;
  return p.lexically_normal().string();
}

// An input mesh must be a regular file: a folder fails obscurely, and reading
// a FIFO or a device such as /dev/zero never ends. A missing file is left to
// the reader, which reports it as a missing input (exit 66).
std::string resolve_input_path(const std::string& path, const Where& w) {
  const std::string resolved = resolve_path(path, w);
  std::error_code ec;
  const fs::file_status status = fs::status(resolved, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status))
    w.fail("\"" + resolved + "\" is not a regular file");
  return resolved;
}

void check_box(const Vec3& lo, const Vec3& hi, const Where& w) {
  for (int i = 0; i < 3; ++i)
    if (!(hi[i] > lo[i])) (w / "max").fail("max must exceed min along every axis (axis " + std::to_string(i) + ")");
}

}  // namespace fsicut::scene
