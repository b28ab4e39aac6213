#include "lib/mesh/obj.hpp"

#include <tiny_obj_loader.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/core/error.hpp"

namespace fsicut::mesh {
namespace {

// What the parser callbacks collect. Callbacks cannot stop tinyobjloader, so
// the first problem is recorded here and thrown once parsing has returned.
struct ObjCollector {
  std::vector<Real> coords;  // x, y, z per `v` record
  std::vector<Triangle> triangles;
  Index faces = 0;  // `f` records seen so far
  std::string error;

  Index vertex_count() const { return static_cast<Index>(coords.size() / 3); }
};

void on_vertex(void* data, tinyobj::real_t x, tinyobj::real_t y, tinyobj::real_t z, tinyobj::real_t) {
  auto& c = *static_cast<ObjCollector*>(data);
  if (c.error.empty() && !(std::isfinite(x) && std::isfinite(y) && std::isfinite(z))) {
    std::ostringstream msg;
    msg << "vertex " << c.vertex_count() + 1 << " has a non-finite coordinate";
    c.error = msg.str();
  }
  c.coords.insert(c.coords.end(), {x, y, z});
}

void on_face(void* data, tinyobj::index_t* indices, int count) {
  auto& c = *static_cast<ObjCollector*>(data);
  const Index face = ++c.faces;
  if (!c.error.empty()) return;
  std::ostringstream msg;
  if (count < 3) {
    msg << "face " << face << " has " << count << " corner" << (count == 1 ? "" : "s")
        << "; a face needs at least 3";
    c.error = msg.str();
    return;
  }
  // OBJ indices are 1-based; negative ones count back from the last vertex
  // read so far; 0 is invalid (the callback API passes them raw).
  std::vector<int> v(count);
  for (int k = 0; k < count; ++k) {
    const Index raw = indices[k].vertex_index;
    const Index resolved = raw > 0 ? raw - 1 : c.vertex_count() + raw;
    if (raw == 0 || resolved < 0 || resolved >= c.vertex_count()) {
      msg << "face " << face << " refers to vertex " << raw << ", but only " << c.vertex_count()
          << " vertices are defined before it";
      c.error = msg.str();
      return;
    }
    v[k] = static_cast<int>(resolved);
  }
  for (int k = 1; k + 1 < count; ++k) c.triangles.emplace_back(v[0], v[k], v[k + 1]);
}

// tinyobjloader reads a coordinate it cannot parse ("nan", "1,5") as 0 without
// a word. Check every `v` record first: three to seven finite numbers (x y z,
// optionally w or an r g b colour). Returns "line N: ..." or "" when all is well.
std::string check_vertex_records(const std::string& text) {
  std::istringstream lines(text);
  Index line_number = 0, vertex = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] != 'v' || start + 1 >= line.size() ||
        (line[start + 1] != ' ' && line[start + 1] != '\t'))
      continue;
    ++vertex;
    std::istringstream fields(line.substr(start + 1));
    int numbers = 0;
    bool ok = true;
    for (std::string field; ok && fields >> field;) {
      char* end = nullptr;
      const double value = std::strtod(field.c_str(), &end);
      ok = end == field.c_str() + field.size() && std::isfinite(value);
      numbers += ok;
    }
    if (!ok || numbers < 3 || numbers > 7) {
      std::ostringstream msg;
      msg << "line " << line_number << ": vertex " << vertex << " must be 3 finite numbers (x y z): '"
          << line.substr(start) << "'";
      return msg.str();
    }
  }
  return {};
}

}  // namespace

SurfaceMesh read_obj(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw MissingInputError(path + ": mesh file does not exist");
  if (std::filesystem::is_directory(path, ec))
    throw MissingInputError(path + ": is a directory, not a mesh file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw MissingInputError(path + ": cannot open mesh file");
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) throw MissingInputError(path + ": cannot read mesh file");
  const std::string text = contents.str();
  const std::string bad_vertex = check_vertex_records(text);
  if (!bad_vertex.empty()) throw MeshError(path + ": " + bad_vertex);
  std::istringstream in(text);

  ObjCollector collected;
  tinyobj::callback_t callbacks;
  callbacks.vertex_cb = on_vertex;
  callbacks.index_cb = on_face;
  std::string warn, err;
  const bool ok = tinyobj::LoadObjWithCallback(in, callbacks, &collected, nullptr, &warn, &err);
  if (!collected.error.empty()) throw MeshError(path + ": " + collected.error);
  if (!ok) {
    // tinyobjloader ends its messages with newlines; keep the first line.
    throw MeshError(path + ": cannot parse OBJ: " + err.substr(0, err.find('\n')));
  }

  SurfaceMesh mesh;
  mesh.vertices = Eigen::Map<const Points>(collected.coords.data(), 3, collected.vertex_count());
  mesh.triangles = std::move(collected.triangles);
  return mesh;
}

}  // namespace fsicut::mesh
