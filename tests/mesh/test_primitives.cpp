#include <doctest/doctest.h>

#include <cmath>

#include "lib/core/error.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/primitives.hpp"
#include "tests/mesh/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::mesh;

namespace {

using test::min_tet_volume;

Vec3 node_mean(const TetMesh& m) { return m.rest.rowwise().mean(); }

}  // namespace

TEST_CASE("icosphere: counts and radius and outward orientation") {
  const Vec3 c(1, -2, 0.5);
  for (int n = 0; n <= 4; ++n) {
    const SurfaceMesh s = icosphere(c, 0.7, n);
    const int four_n = 1 << (2 * n);
    CHECK(s.triangles.size() == std::size_t(20 * four_n));
    CHECK(s.vertices.cols() == 10 * four_n + 2);
    CHECK(((s.vertices.colwise() - c).colwise().norm().array() - 0.7).abs().maxCoeff() < 1e-14);
    CHECK_NOTHROW(check_closed_surface(s, "icosphere"));
    for (const Triangle& t : s.triangles) {  // every face points away from the centre
      const Vec3 a = s.vertices.col(t[0]), b = s.vertices.col(t[1]), d = s.vertices.col(t[2]);
      CHECK((b - a).cross(d - a).dot(a - c) > 0);
    }
  }
  CHECK_THROWS_AS(icosphere(c, 0.0, 1), MeshError);
  CHECK_THROWS_AS(icosphere(c, 1.0, -1), MeshError);
  CHECK_THROWS_AS(icosphere(c, 1.0, MAX_SUBDIVISIONS + 1), MeshError);
}

TEST_CASE("sphere_mesh volume approaches 4/3 pi r^3 as subdivisions grow") {
  const Real r = 0.5;
  const Real exact = 4.0 / 3.0 * M_PI * r * r * r;
  Real previous_error = exact;
  for (int n = 0; n <= 4; ++n) {
    const TetMesh m = sphere_mesh(Vec3(0.3, 0.2, 0.1), r, n, TetgenOptions{});
    const Real v = volume(m);
    const Real error = (exact - v) / exact;
    MESSAGE("subdivisions " << n << ": " << m.tets.size() << " tets, volume " << v << ", relative deficit "
                            << error);
    CHECK(min_tet_volume(m) > 0);
    CHECK(error > 0);  // inscribed polyhedron
    CHECK(error < previous_error);
    if (n > 0) CHECK(error < 0.35 * previous_error);  // O(h^2): about a quarter per level
    previous_error = error;
  }
  CHECK(previous_error < 3e-3);
}

TEST_CASE("shell_mesh is the difference of two icosphere volumes") {
  const TetMesh m = shell_mesh(Vec3(0, 1, 0), 1.0, 0.6, 2, TetgenOptions{});
  const Real expected = enclosed_volume(icosphere(Vec3(0, 1, 0), 1.0, 2)) -
                        enclosed_volume(icosphere(Vec3(0, 1, 0), 0.6, 2));
  const Real v = volume(m);
  MESSAGE("shell: " << m.tets.size() << " tets, volume " << v << ", expected " << expected);
  CHECK(std::abs(v - expected) <= 1e-9 * expected);
  CHECK(min_tet_volume(m) > 0);
  CHECK(m.boundary.size() == 2 * 320);  // outer and inner surfaces, kept as given
  // No node inside the cavity.
  CHECK(((m.rest.colwise() - Vec3(0, 1, 0)).colwise().norm().array() >= 0.6 * (1 - 1e-12)).all());
  CHECK_NOTHROW(check_closed_surface(SurfaceMesh{m.rest, m.boundary}, "shell boundary"));
  CHECK_THROWS_AS(shell_mesh(Vec3::Zero(), 1.0, 1.0, 1, TetgenOptions{}), MeshError);
}

TEST_CASE("rotation_matrix is Rz * Ry * Rx in degrees") {
  Transform t;
  t.rotate = Vec3(90, 0, 0);
  CHECK((rotation_matrix(t) * Vec3::UnitY()).isApprox(Vec3::UnitZ()));
  t.rotate = Vec3(0, 90, 0);
  CHECK((rotation_matrix(t) * Vec3::UnitZ()).isApprox(Vec3::UnitX()));
  t.rotate = Vec3(0, 0, 90);
  CHECK((rotation_matrix(t) * Vec3::UnitX()).isApprox(Vec3::UnitY()));
  // x first, then z: y -> z (about x) stays z (about z).
  t.rotate = Vec3(90, 0, 90);
  CHECK((rotation_matrix(t) * Vec3::UnitY()).isApprox(Vec3::UnitZ()));
  CHECK((rotation_matrix(t) * Vec3::UnitZ()).isApprox(Vec3::UnitX()));
  t.rotate = Vec3(17, -43, 121);
  const Eigen::Matrix3d r = rotation_matrix(t);
  CHECK((r.transpose() * r).isApprox(Eigen::Matrix3d::Identity(), 1e-14));
  CHECK(r.determinant() == doctest::Approx(1.0));
}

TEST_CASE("apply_transform: rotation keeps volume and orientation - scale s multiplies volume by s^3") {
  const TetMesh original = sphere_mesh(Vec3(0.2, 0, 0), 0.5, 2, TetgenOptions{});
  const Real v0 = volume(original);

  TetMesh rotated = original;
  Transform rotation;
  rotation.rotate = Vec3(30, 45, 60);
  rotation.translate = Vec3(1, 2, 3);
  apply_transform(rotated, rotation);
  CHECK(volume(rotated) == doctest::Approx(v0).epsilon(1e-12));
  CHECK(min_tet_volume(rotated) > 0);
  CHECK(node_mean(rotated).isApprox(Vec3(1, 2, 3) + rotation_matrix(rotation) * node_mean(original), 1e-12));
  CHECK(rotated.tets == original.tets);
  CHECK(rotated.boundary == original.boundary);

  for (Real s : {0.5, 2.0, 3.0}) {
    TetMesh scaled = original;
    Transform scale;
    scale.scale = s;
    apply_transform(scaled, scale);
    MESSAGE("scale " << s << ": volume ratio " << volume(scaled) / v0);
    CHECK(volume(scaled) == doctest::Approx(s * s * s * v0).epsilon(1e-12));
    CHECK(min_tet_volume(scaled) > 0);
  }

  TetMesh bad = original;
  Transform mirror;
  mirror.scale = -1;
  CHECK_THROWS_AS(apply_transform(bad, mirror), MeshError);
}

TEST_SUITE("validation") {
  TEST_CASE("sphere_mesh volume deficit falls by 4x per subdivision level (second order in h)") {
    const Real r = 1.0;
    const Real exact = 4.0 / 3.0 * M_PI;
    Real previous = 0;
    for (int n = 2; n <= 6; ++n) {
      const TetMesh m = sphere_mesh(Vec3::Zero(), r, n, TetgenOptions{});
      const Real deficit = (exact - volume(m)) / exact;
      MESSAGE("subdivisions " << n << ": " << m.tets.size() << " tets, relative deficit " << deficit
                              << (n > 2 ? ", ratio to previous level " + std::to_string(previous / deficit) : ""));
      CHECK(deficit > 0);
      if (n > 2) CHECK(previous / deficit == doctest::Approx(4.0).epsilon(0.05));
      previous = deficit;
    }
  }
}
