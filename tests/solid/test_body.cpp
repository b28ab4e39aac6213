#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "lib/core/error.hpp"
#include "tests/solid/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::solid;

TEST_CASE("make_body: lumped masses sum to density times volume, split equally per tet") {
  const Real rho = 800;
  const Body b = test::box_body(test::solid_desc(rho, 1e5, 0.3), Vec3(0, 0, 0), Vec3(0.2, 0.3, 0.4), Vec3i(2, 3, 4));
  CHECK(b.total_mass() == doctest::Approx(rho * 0.2 * 0.3 * 0.4).epsilon(1e-12));
  // Corner node (0,0,0) of the Kuhn split touches the 6 tets of its cell: 6 * (V_cell / 6) / 4.
  const Real cell = 0.1 * 0.1 * 0.1;
  CHECK(b.mass[0] == doctest::Approx(rho * cell / 4).epsilon(1e-12));
  CHECK(b.mass.minCoeff() > 0);
  const BodyStats s = stats(b);
  CHECK(s.volume == doctest::Approx(0.2 * 0.3 * 0.4).epsilon(1e-12));
  CHECK((s.centroid - Vec3(0.1, 0.15, 0.2)).norm() < 1e-12);
  CHECK(s.elastic_energy == 0);
  CHECK(s.kinetic_energy == 0);
}

TEST_CASE("make_body: quadratic elements - positive HRZ masses, same total mass, centroid, volume and pinning") {
  const Real rho = 800;
  BodySpec d = test::solid_desc(rho, 1e5, 0.3);
  d.element = ElementOrder::quadratic;
  d.pinned = test::pin_box(Vec3(-1, -1, -1), Vec3(0, 1, 1));  // the x = 0 face
  const Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(0.2, 0.3, 0.4), Vec3i(2, 3, 4));
  REQUIRE(b.quadratic());
  CHECK(b.num_nodes() == 5 * 7 * 9);  // a structured box's corner and mid-edge nodes fill the doubled lattice
  CHECK(b.total_mass() == doctest::Approx(rho * 0.2 * 0.3 * 0.4).epsilon(1e-12));
  // Row sums of the consistent mass give corners -rho V / 20: HRZ keeps every node positive.
  CHECK(b.mass.minCoeff() > 0);
  const BodyStats s = stats(b);
  CHECK(s.volume == doctest::Approx(0.2 * 0.3 * 0.4).epsilon(1e-12));
  CHECK((s.centroid - Vec3(0.1, 0.15, 0.2)).norm() < 1e-12);
  // Every node on the pinned face is pinned, mid-edge nodes included: its 7 x 9 lattice points.
  Index pinned = 0;
  for (Index i = 0; i < b.num_nodes(); ++i) {
    CHECK(bool(b.pinned[static_cast<std::size_t>(i)]) == (b.mesh.rest(0, i) <= 0));
    pinned += b.pinned[static_cast<std::size_t>(i)];
  }
  CHECK(pinned == 7 * 9);
  CHECK(b.dofs.num_free_nodes() == b.num_nodes() - pinned);
}

TEST_CASE("make_body: velocity, pinned regions and initial_scale") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.velocity = Vec3(1, -2, 0.5);
  const auto face = test::pin_box(Vec3(-1, -1, -1), Vec3(1e-9, 2, 2));
  // The sphere of radius 1e-3 about exactly the far corner node.
  d.pinned = [face](const Vec3& x) { return face(x) || (x - Vec3(1, 1, 1)).norm() <= 1e-3; };
  d.initial_scale = 0.5;
  const Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(3, 3, 3));

  int pinned = 0;
  for (Index i = 0; i < b.num_nodes(); ++i) {
    const Vec3 X = b.mesh.rest.col(i);
    const bool expect = X.x() <= 1e-9 || (X - Vec3(1, 1, 1)).norm() <= 1e-3;
    CHECK(bool(b.pinned[i]) == expect);
    pinned += b.pinned[i];
    if (expect) {
      CHECK(b.v.col(i).isZero());
      CHECK(b.x.col(i) == X);  // pinned nodes never move, even under initial_scale
      CHECK(b.dofs.free_index[i] == -1);
    } else {
      CHECK(b.v.col(i) == d.velocity);
      CHECK((b.x.col(i) - (Vec3(0.5, 0.5, 0.5) + 0.5 * (X - Vec3(0.5, 0.5, 0.5)))).norm() < 1e-15);
    }
  }
  CHECK(pinned == 16 + 1);
  CHECK(b.dofs.num_free_nodes() == b.num_nodes() - pinned);
  for (int k = 0; k < b.dofs.num_free_dofs(); ++k) CHECK(b.dofs.free_dof(b.dofs.node_dof(k) / 3, k % 3) == k);
}

TEST_CASE("initial_scale 0.5 starts a free cube at one eighth of its volume") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.initial_scale = 0.5;
  const Body b = test::box_body(d, Vec3(0.2, 0.2, 0.2), Vec3(0.4, 0.4, 0.4), Vec3i(2, 2, 2));
  const BodyStats s = stats(b);
  MESSAGE("initial volume " << s.volume << " m^3, rest " << 0.008 << " m^3");
  CHECK(s.volume == doctest::Approx(0.008 / 8).epsilon(1e-12));
  CHECK((s.centroid - Vec3(0.3, 0.3, 0.3)).norm() < 1e-14);
  // Uniform compression: F = I/2, R = I, energy V (mu eps:eps + lambda/2 tr(eps)^2) with eps = -I/2.
  const Real lambda = lame_lambda(1e5, 0.3), mu = lame_mu(1e5, 0.3);
  const Real expected = 0.008 * (mu * 3 * 0.25 + 0.5 * lambda * 1.5 * 1.5);
  CHECK(s.elastic_energy == doctest::Approx(expected).epsilon(1e-10));
}

TEST_CASE("stats: momentum, kinetic energy and signed volume of an inverted body") {
  BodySpec d = test::solid_desc(500, 1e5, 0.3);
  d.velocity = Vec3(2, 0, 0);
  Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(2, 2, 2));
  BodyStats s = stats(b);
  CHECK((s.mean_velocity - Vec3(2, 0, 0)).norm() < 1e-14);
  CHECK(s.kinetic_energy == doctest::Approx(0.5 * 500 * 4).epsilon(1e-12));
  b.x.row(2) *= -1;  // mirror: every tet inverted
  update_rotations(b);
  s = stats(b);
  CHECK(s.volume == doctest::Approx(-1).epsilon(1e-12));
  CHECK(std::isfinite(s.elastic_energy));
  CHECK(s.elastic_energy > 0);
}

TEST_CASE("stats: max_strain is the largest principal strain, zero under rigid motion, above 1 when inverted") {
  Body b = test::box_body(test::solid_desc(500, 1e5, 0.3), Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(2, 2, 2));
  CHECK(stats(b).max_strain < 1e-14);
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const Points rest = b.x;
  b.x = (R * rest).colwise() + Vec3(3, -1, 2);
  CHECK(stats(b).max_strain < 1e-12);
  // Stretch 1.1 along x, squeeze 0.95 along z: principal strains 0.1 and 0.05.
  b.x = R * (Vec3(1.1, 1, 0.95).asDiagonal() * rest);
  CHECK(stats(b).max_strain == doctest::Approx(0.1).epsilon(1e-12));
  // Mirrored (inverted) at unit stretch: the flipped singular value is -1.
  b.x = rest;
  b.x.row(2) *= -1;
  CHECK(stats(b).max_strain == doctest::Approx(2).epsilon(1e-12));
  b.x(0, 0) = std::nan("");
  CHECK(std::isnan(stats(b).max_strain));
}

TEST_CASE("check_finite names the solid - bad meshes are typed errors") {
  Body b = test::box_body(test::solid_desc(1000, 1e5, 0.3), Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(1, 1, 1));
  b.name = "beam";
  CHECK_NOTHROW(check_finite(b));
  b.v(1, 3) = std::numeric_limits<Real>::quiet_NaN();
  CHECK_THROWS_WITH_AS(check_finite(b), doctest::Contains("solid 'beam'"), SimulationError);
  b.v(1, 3) = 0;
  b.x(0, 5) = std::numeric_limits<Real>::infinity();
  CHECK_THROWS_WITH_AS(check_finite(b), doctest::Contains("node 5"), SimulationError);

  mesh::TetMesh flat = mesh::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(1, 1, 1));
  std::swap(flat.tets[2][0], flat.tets[2][1]);  // negatively oriented
  CHECK_THROWS_WITH_AS(make_body(test::solid_desc(1000, 1e5, 0.3), flat), doctest::Contains("solid 'test': tet 2"), MeshError);
}
