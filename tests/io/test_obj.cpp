#include <doctest/doctest.h>

// The library is built against tinyobjloader_double; its ABI needs the same
// real_t here, and the define does not travel with the library's private link.
#ifndef TINYOBJLOADER_USE_DOUBLE
#define TINYOBJLOADER_USE_DOUBLE
#endif
#include <tiny_obj_loader.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/io/obj.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using test::read_file;
namespace fs = std::filesystem;

namespace {

// Everything after the header comment and the vertex lines: the face lines.
std::string face_lines(const std::string& obj) { return obj.substr(obj.find("\nf ") + 1); }

// 10 nodes with coordinates of mixed signs and magnitudes (1e-4 .. 1e3 m).
Points sample_positions(Real shift) {
  Points x(3, 10);
  for (int n = 0; n < 10; ++n)
    x.col(n) = Vec3(std::pow(10.0, n % 8 - 4) * (1 + 0.123456789123 * n) + shift,
                    -0.7071067811865476 * (n + 1) - shift, std::sin(1.0 + n) * 3.14159265358979 + shift);
  return x;
}

}  // namespace

TEST_CASE("write_obj round trip through tinyobjloader: compacted vertices, 1-based faces, 1e-9 coordinates") {
  test::ScratchDir dir("io-obj");
  const fs::path path = dir / "beam.0001.obj";
  const Points x = sample_positions(0);
  // Nodes 0, 2, 5, 6 are interior (unused); used nodes are 1, 3, 4, 7, 8, 9.
  const std::vector<mesh::Triangle> tris{{9, 3, 1}, {1, 3, 4}, {4, 7, 8}, {8, 9, 1}};
  const std::vector<int> used{1, 3, 4, 7, 8, 9};
  io::write_obj(path, x, tris);

  const std::string text = read_file(path);
  CHECK(text.rfind("# fsicut", 0) == 0);

  tinyobj::ObjReaderConfig config;
  config.triangulate = false;
  tinyobj::ObjReader reader;
  REQUIRE(reader.ParseFromFile(path.string(), config));
  const tinyobj::attrib_t& attrib = reader.GetAttrib();
  REQUIRE(attrib.vertices.size() == 3 * used.size());
  REQUIRE(reader.GetShapes().size() == 1);
  const tinyobj::mesh_t& m = reader.GetShapes()[0].mesh;
  REQUIRE(m.num_face_vertices.size() == tris.size());
  REQUIRE(m.indices.size() == 3 * tris.size());

  Real worst = 0;
  for (std::size_t v = 0; v < used.size(); ++v)
    for (int c = 0; c < 3; ++c) {
      const Real expected = x(c, used[v]);
      const Real got = attrib.vertices[3 * v + c];
      worst = std::max(worst, std::abs(got - expected) / std::abs(expected));
    }
  MESSAGE("worst relative coordinate error " << worst);
  CHECK(worst <= 1e-9);

  // Face f, corner k refers to the vertex of the same node.
  for (std::size_t f = 0; f < tris.size(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int v = m.indices[3 * f + k].vertex_index;
      REQUIRE(v >= 0);
      REQUIRE(v < static_cast<int>(used.size()));
      CHECK(used[v] == tris[f][k]);
    }
}

TEST_CASE("write_obj: same triangles give the same vertex order and faces every frame") {
  test::ScratchDir dir("io-obj");
  const std::vector<mesh::Triangle> tris{{2, 0, 5}, {5, 0, 3}};
  io::write_obj(dir / "s.0000.obj", sample_positions(0), tris);
  io::write_obj(dir / "s.0001.obj", sample_positions(0.25), tris);
  const std::string f0 = read_file(dir / "s.0000.obj"), f1 = read_file(dir / "s.0001.obj");
  CHECK(f0 != f1);
  CHECK(face_lines(f0) == face_lines(f1));
  CHECK(face_lines(f0) == "f 2 1 4\nf 4 1 3\n");
}

TEST_CASE("write_obj rejects bad node indices and non-finite used positions") {
  test::ScratchDir dir("io-obj");
  Points x = sample_positions(0);
  CHECK_THROWS_AS(io::write_obj(dir / "a.obj", x, {{0, 1, 10}}), SimulationError);
  CHECK_THROWS_AS(io::write_obj(dir / "a.obj", x, {{0, -1, 2}}), SimulationError);
  x(1, 7) = std::numeric_limits<Real>::quiet_NaN();
  CHECK_THROWS_AS(io::write_obj(dir / "a.obj", x, {{7, 1, 2}}), SimulationError);
  CHECK_FALSE(fs::exists(dir / "a.obj"));
  // A NaN in a node no triangle uses is not written and not an error.
  io::write_obj(dir / "a.obj", x, {{0, 1, 2}});
  CHECK(fs::exists(dir / "a.obj"));
}
