#include <doctest/doctest.h>

#include <fstream>

#include "lib/core/error.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::mesh;
using test::require_error;

namespace {

std::string write_file(const test::ScratchDir& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("read_obj fan-triangulates polygons and keeps vertex order") {
  const std::string path = (test::source_dir() / "meshes/cube.obj").string();
  const SurfaceMesh cube = read_obj(path);
  CHECK(cube.vertices.cols() == 8);
  CHECK(cube.triangles.size() == 12);  // 6 quads
  CHECK(cube.vertices.col(0).isApprox(Vec3(-0.5, -0.5, -0.5)));
  CHECK(cube.vertices.col(7).isApprox(Vec3(0.5, 0.5, 0.5)));
  CHECK_NOTHROW(check_closed_surface(cube, path));
  CHECK(enclosed_volume(cube) == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("read_obj merges objects and groups and resolves negative indices") {
  test::ScratchDir dir("mesh_obj");
  // A tetrahedron split over two objects and a group, with relative indices,
  // normals and texture coordinates that must be ignored.
  const std::string path = write_file(dir, "tet.obj",
                                      "mtllib missing.mtl\n"
                                      "o first\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                      "vn 0 0 1\nvt 0 0\n"
                                      "f 1/1/1 3/1/1 2/1/1\nf -4 -3 -1\n"
                                      "o second\ng side\nusemtl none\nf 1//1 4//1 3//1\nf 2 3 4\n");
  const SurfaceMesh tet = read_obj(path);
  REQUIRE(tet.triangles.size() == 4);
  CHECK(tet.triangles[1] == Triangle(0, 1, 3));
  CHECK_NOTHROW(check_closed_surface(tet, path));
  CHECK(enclosed_volume(tet) == doctest::Approx(1.0 / 6).epsilon(1e-14));
}

TEST_CASE("read_obj reports missing and unreadable files as missing input") {
  const std::string missing = (test::source_dir() / "meshes/does_not_exist.obj").string();
  require_error<MissingInputError>([&] { read_obj(missing); }, {missing, "does not exist"});
  test::ScratchDir dir("mesh_obj_dir");
  require_error<MissingInputError>([&] { read_obj(dir.path().string()); }, {dir.path().string(), "directory"});
}

TEST_CASE("read_obj rejects bad faces and coordinates with the file and the element") {
  const std::string garbage = (test::source_dir() / "tests/data/meshes/garbage.obj").string();
  require_error<MeshError>([&] { read_obj(garbage); }, {garbage, "face 1 refers to vertex 7"});

  test::ScratchDir dir("mesh_obj_bad");
  const std::string zero = write_file(dir, "zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 0 1 2\n");
  require_error<MeshError>([&] { read_obj(zero); }, {zero, "face 2 refers to vertex 0"});
  const std::string relative = write_file(dir, "relative.obj", "v 0 0 0\nv 1 0 0\nf 1 2 -3\n");
  require_error<MeshError>([&] { read_obj(relative); }, {relative, "face 1 refers to vertex -3"});
  const std::string segment = write_file(dir, "segment.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2\n");
  require_error<MeshError>([&] { read_obj(segment); }, {segment, "face 2 has 2 corners"});
  const std::string nan = write_file(dir, "nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n");
  require_error<MeshError>([&] { read_obj(nan); }, {nan, "line 2: vertex 2"});
  const std::string comma = write_file(dir, "comma.obj", "# decimal commas\nv 0 0 0\nv 1,5 0 0\nv 0 1 0\nf 1 2 3\n");
  require_error<MeshError>([&] { read_obj(comma); }, {comma, "line 3: vertex 2", "'v 1,5 0 0'"});
  const std::string short_v = write_file(dir, "short.obj", "v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n");
  require_error<MeshError>([&] { read_obj(short_v); }, {short_v, "line 2: vertex 2"});
}

TEST_CASE("read_obj reads a file without faces as an empty mesh, which the check rejects") {
  const std::string path = (test::source_dir() / "tests/data/meshes/empty.obj").string();
  const SurfaceMesh empty = read_obj(path);
  CHECK(empty.triangles.empty());
  require_error<MeshError>([&] { check_closed_surface(empty, path); }, {path, "empty"});
}
