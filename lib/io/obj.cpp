#include "lib/io/obj.hpp"

#include <cstdio>
#include <string>

#include "lib/core/error.hpp"
#include "fsicut/core/version.hpp"
#include "lib/io/atomic.hpp"

namespace fsicut::io {

namespace {

// Room for one "v x y z\n" line: three %.10g numbers of at most 17 characters
// ("-1.234567891e-300") plus separators.
constexpr int LINE_BUFFER_SIZE = 96;

constexpr Index UNUSED = -1;

}  // namespace

FileDigest write_obj(const std::filesystem::path& path, const Points& positions,
                     const std::vector<mesh::Triangle>& triangles, const std::string& object_name) {
  const Index node_count = positions.cols();

  // vertex_of[node] = 0-based vertex index in the file, or UNUSED.
  std::vector<Index> vertex_of(static_cast<std::size_t>(node_count), UNUSED);
  for (std::size_t t = 0; t < triangles.size(); ++t)
    for (int corner = 0; corner < 3; ++corner) {
      const Index node = triangles[t][corner];
      if (node < 0 || node >= node_count)
        throw SimulationError("writing " + path.string() + ": triangle " + std::to_string(t) +
                              " refers to node " + std::to_string(node) + " of " +
                              std::to_string(node_count));
      vertex_of[static_cast<std::size_t>(node)] = 0;
    }
  Index vertex_count = 0;
  for (Index node = 0; node < node_count; ++node) {
    Index& v = vertex_of[static_cast<std::size_t>(node)];
    if (v == UNUSED) continue;
    if (!positions.col(node).allFinite())
      throw SimulationError("writing " + path.string() + ": node " + std::to_string(node) +
                            " has a non-finite position");
    v = vertex_count++;
  }

  std::string text = "# fsicut " + std::string(VERSION) + " surface: " +
                     std::to_string(vertex_count) + " vertices, " +
                     std::to_string(triangles.size()) + " triangles\n";
  if (!object_name.empty()) text += "o " + object_name + "\n";
  char line[LINE_BUFFER_SIZE];
  for (Index node = 0; node < node_count; ++node) {
    if (vertex_of[static_cast<std::size_t>(node)] == UNUSED) continue;
    const int n = std::snprintf(line, sizeof line, "v %.*g %.*g %.*g\n", OBJ_SIGNIFICANT_DIGITS,
                                positions(0, node), OBJ_SIGNIFICANT_DIGITS, positions(1, node),
                                OBJ_SIGNIFICANT_DIGITS, positions(2, node));
    text.append(line, static_cast<std::size_t>(n));
  }
  for (const mesh::Triangle& tri : triangles) {
    const int n = std::snprintf(line, sizeof line, "f %lld %lld %lld\n",
                                static_cast<long long>(vertex_of[static_cast<std::size_t>(tri[0])] + 1),
                                static_cast<long long>(vertex_of[static_cast<std::size_t>(tri[1])] + 1),
                                static_cast<long long>(vertex_of[static_cast<std::size_t>(tri[2])] + 1));
    text.append(line, static_cast<std::size_t>(n));
  }
  return write_text_atomically(path, text);
}

}  // namespace fsicut::io
