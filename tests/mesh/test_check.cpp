#include <doctest/doctest.h>

#include <cmath>

#include "lib/core/error.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"
#include "lib/mesh/primitives.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::mesh;
using test::require_error;

namespace {

// The bad mesh `file` under tests/data/meshes must fail the check with a
// message that starts with the file's path and contains `parts`.
void require_bad(const std::string& file, std::initializer_list<std::string> parts) {
  const std::string path = (test::source_dir() / "tests/data/meshes" / file).string();
  const SurfaceMesh mesh = read_obj(path);
  try {
    check_closed_surface(mesh, path);
    FAIL(file << " passed the check");
  } catch (const MeshError& e) {
    const std::string what = e.what();
    MESSAGE(what);
    CHECK(what.rfind(path + ": ", 0) == 0);
    CHECK(e.code() == ExitCode::data);
    for (const std::string& p : parts) CHECK_MESSAGE(what.find(p) != std::string::npos, "missing '" << p << "'");
  }
}

SurfaceMesh unit_tet() {
  SurfaceMesh m;
  m.vertices.resize(3, 4);
  m.vertices << 0, 1, 0, 0,  //
      0, 0, 1, 0,            //
      0, 0, 0, 1;
  m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  return m;
}

}  // namespace

TEST_CASE("tet_quality: 1 for the regular tet at any size and position - 0 when flat - worst_tet finds the sliver") {
  const Vec3 a(1, 1, 1), b(1, -1, -1), c(-1, 1, -1), d(-1, -1, 1);  // regular, edge 2 sqrt(2)
  CHECK(tet_quality(a, b, c, d) == doctest::Approx(1).epsilon(1e-14));
  CHECK(tet_quality(a, c, b, d) == doctest::Approx(1).epsilon(1e-14));  // orientation does not matter
  const Vec3 shift(3, -2, 7);
  CHECK(tet_quality(1e-3 * a + shift, 1e-3 * b + shift, 1e-3 * c + shift, 1e-3 * d + shift) ==
        doctest::Approx(1).epsilon(1e-9));
  // The corner of a cube: V = 1/6, l_rms^2 = (3 * 1 + 3 * 2) / 6 = 1.5.
  CHECK(tet_quality(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)) ==
        doctest::Approx(std::sqrt(2.0) / std::pow(1.5, 1.5)).epsilon(1e-14));
  // A sliver: four points of a square lifted alternately by h: quality ~ h.
  const auto sliver = [](Real h) {
    return tet_quality(Vec3(0, 0, h), Vec3(1, 0, -h), Vec3(1, 1, h), Vec3(0, 1, -h));
  };
  CHECK(sliver(0) == 0);
  CHECK(sliver(1e-6) > 0);
  CHECK(sliver(1e-6) < 1e-5);
  CHECK(tet_quality(Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()) == 0);

  TetMesh m = box_mesh(Vec3::Zero(), Vec3::Ones(), {2, 2, 2});
  const WorstTet good = worst_tet(m);
  CHECK(good.quality > 0.5);
  m.rest.conservativeResize(3, m.rest.cols() + 4);
  const Index n = m.rest.cols() - 4;
  m.rest.col(n) = Vec3(0, 0, 1e-7);
  m.rest.col(n + 1) = Vec3(1, 0, -1e-7);
  m.rest.col(n + 2) = Vec3(1, 1, 1e-7);
  m.rest.col(n + 3) = Vec3(0, 1, -1e-7);
  m.tets.emplace_back(n, n + 1, n + 2, n + 3);
  const WorstTet bad = worst_tet(m);
  CHECK(bad.tet == static_cast<Index>(m.tets.size()) - 1);
  CHECK(bad.quality < 1e-6);
}

TEST_CASE("the shipped meshes are closed, manifold and outward") {
  for (const char* file : {"meshes/cube.obj", "meshes/torus.obj", "meshes/hollow_cube.obj"}) {
    const std::string path = (test::source_dir() / file).string();
    CHECK_NOTHROW(check_closed_surface(read_obj(path), path));
  }
}

TEST_CASE("bad meshes raise MeshError naming the file and the offending element") {
  require_bad("open.obj", {"mesh is not closed: edge (6, 8) belongs to face 3 only"});
  require_bad("nonmanifold.obj", {"not manifold", "edge (1, 4) belongs to 4 faces (2, 3, 6, 7)"});
  require_bad("nonmanifold_vertex.obj", {"non-manifold vertex", "vertex 1 "});
  require_bad("flipped_face.obj", {"inconsistently oriented", "flip face 5"});
  require_bad("inward.obj", {"faces point inward", "flip them"});
}

TEST_CASE("check_closed_surface rejects bad indices, degenerate faces and duplicate vertices") {
  {
    SurfaceMesh m = unit_tet();
    m.triangles[2] = {0, 3, 4};
    require_error<MeshError>([&] { check_closed_surface(m, "t.obj"); }, {"t.obj: ", "face 3 refers to vertex 5"});
  }
  {
    SurfaceMesh m = unit_tet();
    m.triangles[1] = {0, 1, 0};
    require_error<MeshError>([&] { check_closed_surface(m, "t.obj"); }, {"face 2 repeats a vertex: (1, 2, 1)"});
  }
  {
    SurfaceMesh m = unit_tet();
    m.vertices.col(3) = Vec3(0.5, 0.5, 0);  // face 4 (2, 3, 4) becomes a segment
    require_error<MeshError>([&] { check_closed_surface(m, "t.obj"); }, {"face 4 has zero area"});
  }
  {
    SurfaceMesh m = unit_tet();  // vertex 5 duplicates vertex 4 and replaces it in face 4
    m.vertices.conservativeResize(3, 5);
    m.vertices.col(4) = m.vertices.col(3);
    m.triangles[3] = {1, 2, 4};
    require_error<MeshError>([&] { check_closed_surface(m, "t.obj"); }, {"vertices 4 and 5", "weld"});
  }
  {
    SurfaceMesh m;
    require_error<MeshError>([&] { check_closed_surface(m, "t.obj"); }, {"t.obj: mesh is empty"});
  }
}

TEST_CASE("enclosed_volume follows the divergence theorem and the sign convention") {
  SurfaceMesh tet = unit_tet();
  CHECK(enclosed_volume(tet) == doctest::Approx(1.0 / 6).epsilon(1e-15));
  // Far from the origin the result must not lose digits.
  tet.vertices.colwise() += Vec3(1e4, -2e4, 3e4);
  CHECK(enclosed_volume(tet) == doctest::Approx(1.0 / 6).epsilon(1e-10));
  for (Triangle& t : tet.triangles) std::swap(t[1], t[2]);
  CHECK(enclosed_volume(tet) == doctest::Approx(-1.0 / 6).epsilon(1e-10));

  // Torus: 32 x 16 planar quads. Each of the nu = 32 wedges is the ruled solid
  // between two copies of the nv = 16-gon cross-section, of volume
  // sin(2 pi / nu) * R * A_polygon, with A_polygon = nv / 2 * r^2 sin(2 pi / nv).
  const SurfaceMesh torus = read_obj((test::source_dir() / "meshes/torus.obj").string());
  const Real exact = 32 * std::sin(2 * M_PI / 32) * 0.3 * (16 / 2.0) * 0.1 * 0.1 * std::sin(2 * M_PI / 16);
  const Real v = enclosed_volume(torus);
  MESSAGE("torus.obj volume " << v << " m^3, polyhedral torus " << exact << ", smooth torus "
                              << 2 * M_PI * M_PI * 0.3 * 0.1 * 0.1);
  CHECK(v == doctest::Approx(exact).epsilon(1e-12));
}

TEST_CASE("volume of a tet mesh sums signed tet volumes") {
  const TetMesh box = box_mesh(Vec3(0, 0, 0), Vec3(1, 2, 3), Vec3i(2, 3, 4));
  CHECK(volume(box) == doctest::Approx(6.0).epsilon(1e-14));
  CHECK(tet_volume(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)) == doctest::Approx(1.0 / 6));
  CHECK(tet_volume(Vec3(0, 0, 0), Vec3(0, 1, 0), Vec3(1, 0, 0), Vec3(0, 0, 1)) == doctest::Approx(-1.0 / 6));
}
