#include <doctest/doctest.h>

#include <set>

#include "lib/core/error.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"
#include "lib/mesh/primitives.hpp"
#include "tests/mesh/fixtures.hpp"
#include "lib/mesh/tetgen.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::mesh;

namespace {

constexpr Real VOLUME_TOLERANCE = 1e-9;  // relative, round-off of summing tets

using test::min_tet_volume;

Real max_tet_volume(const TetMesh& m) {
  Real v = 0;
  for (const Tet& t : m.tets)
    v = std::max(v, tet_volume(m.rest.col(t[0]), m.rest.col(t[1]), m.rest.col(t[2]), m.rest.col(t[3])));
  return v;
}

// The invariants every tetrahedralize() result must satisfy.
void check_tet_mesh(const TetMesh& m, Real expected_volume, const std::string& what) {
  INFO(what);
  REQUIRE(!m.tets.empty());
  CHECK(m.rest.allFinite());
  CHECK(min_tet_volume(m) > 0);
  CHECK(worst_tet(m).quality >= MIN_TET_QUALITY);
  const Real v = volume(m);
  MESSAGE(what << ": " << m.rest.cols() << " nodes, " << m.tets.size() << " tets, " << m.boundary.size()
                << " boundary triangles; volume " << v << ", surface volume " << expected_volume
                << ", relative difference " << std::abs(v - expected_volume) / expected_volume);
  CHECK(std::abs(v - expected_volume) <= VOLUME_TOLERANCE * expected_volume);
  // No unused nodes.
  std::vector<char> used(m.rest.cols(), 0);
  for (const Tet& t : m.tets)
    for (int k = 0; k < 4; ++k) used[t[k]] = 1;
  CHECK(std::count(used.begin(), used.end(), 1) == m.rest.cols());
  // The boundary is a closed outward surface on tet nodes enclosing the same volume.
  const SurfaceMesh boundary{m.rest, m.boundary};
  CHECK_NOTHROW(check_closed_surface(boundary, what + " boundary"));
  CHECK(enclosed_volume(boundary) == doctest::Approx(v).epsilon(VOLUME_TOLERANCE));
}

// The same set of vertex positions (the boundary keeps the input surface).
bool same_triangles(const SurfaceMesh& input, const TetMesh& m) {
  const auto key = [](const Points& p, const Triangle& t) {
    std::multiset<std::tuple<Real, Real, Real>> s;
    for (int k = 0; k < 3; ++k) s.emplace(p(0, t[k]), p(1, t[k]), p(2, t[k]));
    return std::vector<std::tuple<Real, Real, Real>>(s.begin(), s.end());
  };
  std::multiset<std::vector<std::tuple<Real, Real, Real>>> a, b;
  for (const Triangle& t : input.triangles) a.insert(key(input.vertices, t));
  for (const Triangle& t : m.boundary) b.insert(key(m.rest, t));
  return a == b;
}

}  // namespace

TEST_CASE("tetrahedralize fills a sphere, keeping its surface and its volume") {
  const SurfaceMesh s = icosphere(Vec3(0.1, -0.2, 0.3), 0.5, 3);
  const TetMesh m = tetrahedralize(s, TetgenOptions{}, "sphere");
  check_tet_mesh(m, enclosed_volume(s), "sphere level 3");
  CHECK(m.boundary.size() == s.triangles.size());
  CHECK(same_triangles(s, m));
  // Node order: the surface vertices first, as given.
  CHECK(m.rest.leftCols(s.vertices.cols()) == s.vertices);
}

TEST_CASE("tetrahedralize fills OBJ meshes: cube, torus and a cavity found by orientation") {
  for (const char* file : {"meshes/cube.obj", "meshes/torus.obj", "meshes/hollow_cube.obj"}) {
    const std::string path = (test::source_dir() / file).string();
    const SurfaceMesh s = read_obj(path);
    check_closed_surface(s, path);
    const TetMesh m = tetrahedralize(s, TetgenOptions{}, path);
    check_tet_mesh(m, enclosed_volume(s), file);
    CHECK(same_triangles(s, m));
  }
}

TEST_CASE("tetrahedralize respects max_tet_volume") {
  const SurfaceMesh s = icosphere(Vec3::Zero(), 1.0, 2);
  for (Real bound : {1e-2, 1e-3}) {
    const TetMesh m = tetrahedralize(s, TetgenOptions{bound, 2.0}, "sphere");
    check_tet_mesh(m, enclosed_volume(s), "sphere with max_tet_volume");
    MESSAGE("bound " << bound << ": largest tet " << max_tet_volume(m) << ", " << m.tets.size() << " tets");
    CHECK(max_tet_volume(m) <= bound);
    CHECK(Real(m.tets.size()) >= volume(m) / bound);
  }
}

TEST_CASE("tetrahedralize with a volume bound leaves no slivers: the paper's shell and balls") {
  // Without TetGen's final optimization the shell of scenes/paper/fluid_in_sphere.json
  // had flat tets (quality 1e-15) and the buoyancy balls slivers of 0.015:
  // the coupled solve's factorization failed on the shell.
  const TetMesh shell = shell_mesh(Vec3(0.5, 0.3, 0.5), 0.2, 0.15, 2, TetgenOptions{1.1e-4, 2.0});
  const TetMesh ball = sphere_mesh(Vec3(0.5, 0.65, 0.5), 0.08, 1, TetgenOptions{3.5e-6, 2.0});
  for (const auto& [m, what] : {std::pair<const TetMesh*, std::string>{&shell, "shell"}, {&ball, "ball"}}) {
    const WorstTet w = worst_tet(*m);
    MESSAGE(what << ": " << m->tets.size() << " tets, worst quality " << w.quality << " (tet " << w.tet << ")");
    CHECK(w.quality >= 0.05);
  }
}

TEST_CASE("tetrahedralize honours explicit hole points") {
  // The hollow cube's cavity is found from its orientation; a hole point
  // inside it must not change anything.
  const std::string path = (test::source_dir() / "meshes/hollow_cube.obj").string();
  const SurfaceMesh s = read_obj(path);
  const TetMesh m = tetrahedralize(s, TetgenOptions{}, path, {Vec3::Zero()});
  check_tet_mesh(m, 0.875, "hollow cube with a hole point");
}

TEST_CASE("tetrahedralize reports TetGen failures as MeshError naming the file") {
  const std::string path = (test::source_dir() / "tests/data/meshes/self_intersecting.obj").string();
  const SurfaceMesh s = read_obj(path);
  CHECK_NOTHROW(check_closed_surface(s, path));  // closed and outward, but intersecting
  try {
    tetrahedralize(s, TetgenOptions{}, path);
    FAIL("TetGen accepted a self-intersecting surface");
  } catch (const MeshError& e) {
    const std::string what = e.what();
    MESSAGE(what);
    CHECK(what.rfind(path + ": cannot tetrahedralize", 0) == 0);
    CHECK(what.find("intersect") != std::string::npos);
  }
  CHECK_THROWS_AS(tetrahedralize(s, TetgenOptions{0, 0.5}, "q"), MeshError);
  CHECK_THROWS_AS(tetrahedralize(SurfaceMesh{}, TetgenOptions{}, "empty"), MeshError);
}

TEST_CASE("tetrahedralize is deterministic") {
  const SurfaceMesh s = icosphere(Vec3::Zero(), 1.0, 2);
  const TetMesh a = tetrahedralize(s, TetgenOptions{0.01, 1.5}, "sphere");
  const TetMesh b = tetrahedralize(s, TetgenOptions{0.01, 1.5}, "sphere");
  CHECK(a.rest == b.rest);
  CHECK(a.tets == b.tets);
  CHECK(a.boundary == b.boundary);
}

TEST_CASE("tetrahedralize stops TetGen past its time limit with a MeshError naming the mesh") {
  // About 1e5 tetrahedra: seconds of TetGen, far past a limit of 1 ms.
  TetgenOptions options;
  options.max_tet_volume = 4.0 / 3.0 * 3.14159 / 1e5;
  options.time_limit_seconds = 1e-3;
  fsicut::test::require_error<fsicut::MeshError>(
      [&] { tetrahedralize(icosphere(Vec3::Zero(), 1.0, 3), options, "slow.obj"); },
      {"slow.obj", "did not finish within 0.001 s"});
}
