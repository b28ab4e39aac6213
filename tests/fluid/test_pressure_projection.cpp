#include <doctest/doctest.h>

#include <Eigen/SparseCholesky>
#include <cmath>

#include "lib/fluid/pressure_projection.hpp"
#include "lib/cutcell/face_fractions.hpp"
#include "lib/levelset/solid_sdf.hpp"

using namespace fsicut;

namespace {

struct Setup {
  grid::MacGrid grid;
  grid::Array3<Real> liquid_phi;
  cutcell::FaceFractions fractions;
  grid::MacVelocity velocity;
};

// A spherical container (centre (0.5,0.5,0.5), R = 0.4) on [0,1]^3 holding liquid
// below the flat surface y = surface, with u* = g dt on every face.
Setup flat_liquid_in_sphere(int n, Real surface, Real g, Real dt) {
  Setup s;
  s.grid.resolution = {n, n, n};
  s.grid.dx = 1.0 / n;
  const auto solid = levelset::sphere_solid(Vec3(0.5, 0.5, 0.5), 0.4, /*inside_out=*/true);
  const auto solid_phi = levelset::sample_solid_at_nodes(s.grid, solid);
  cutcell::compute_face_fractions(s.grid, solid_phi, s.fractions);
  s.liquid_phi.resize(s.grid.cell_shape());
  for (Index c = 0; c < s.liquid_phi.count(); ++c) {
    const Vec3i ijk = s.liquid_phi.coord(c);
    s.liquid_phi[c] = s.grid.cell_center(ijk.x(), ijk.y(), ijk.z()).y() - surface;
  }
  s.velocity = grid::make_velocity(s.grid);
  s.velocity[1].fill(-g * dt);
  return s;
}

}  // namespace

TEST_CASE("projection: cut-cell weights balance hydrostatics in a spherical container") {
  const Real g = 9.81, dt = 0.01, rho = 1000;
  // Surface at 0.53 m: not grid-aligned (cell centres at (j + 1/2)/24).
  Setup s = flat_liquid_in_sphere(24, 0.53, g, dt);
  const auto system = fluid::assemble_pressure(s.grid, s.liquid_phi, s.fractions, s.velocity, dt, rho);
  const int n = system.active.count();
  MESSAGE("active cells: " << n);
  REQUIRE(n > 1000);
  CHECK(system.pinned_groups == 0);

  // Symmetric ...
  const linsolve::SparseMatrix At = system.matrix.transpose();
  const Real asym = (system.matrix - At).norm() / system.matrix.norm();
  MESSAGE("|A - A^T| / |A| = " << asym);
  CHECK(asym == 0);
  // ... and positive definite: a Cholesky (LDL^T) factorization with a positive diagonal.
  Eigen::SparseMatrix<Real> Acol = system.matrix;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>> ldlt(Acol);
  REQUIRE(ldlt.info() == Eigen::Success);
  const Real dmin = ldlt.vectorD().minCoeff();
  MESSAGE("min D of LDL^T = " << dmin << ", max = " << ldlt.vectorD().maxCoeff());
  CHECK(dmin > 0);

  grid::Array3<Real> pressure(s.grid.cell_shape(), 0.0);
  fluid::ProjectionSettings settings;
  const auto report = fluid::solve_pressure(system, settings, pressure);
  MESSAGE("PCG iterations " << report.iterations << ", relative residual " << report.relative_residual);
  CHECK(report.converged);
  fluid::FaceFlags valid;
  fluid::apply_pressure(s.grid, system.active, s.liquid_phi, s.fractions, pressure, dt, rho,
                           s.velocity, valid);

  // Projected velocity vanishes on every face the projection owns.
  Real umax = 0;
  Index faces = 0;
  for (int a = 0; a < 3; ++a)
    for (Index f = 0; f < s.velocity[a].count(); ++f)
      if (valid[a][f]) {
        umax = std::max(umax, std::abs(s.velocity[a][f]));
        ++faces;
      }
  MESSAGE("max |u| / (g dt) over " << faces << " faces = " << umax / (g * dt));
  CHECK(umax / (g * dt) < 1e-8);

  // Pressure is hydrostatic: p = rho g (surface - y) at the bottom-most active cell.
  Real worst = 0;
  for (int r = 0; r < n; ++r) {
    const Vec3i c = pressure.coord(system.active.cells[r]);
    const Real y = s.grid.cell_center(c.x(), c.y(), c.z()).y();
    worst = std::max(worst, std::abs(pressure(c) - rho * g * (0.53 - y)) / (rho * g * 0.4));
  }
  MESSAGE("max |p - rho g (s - y)| / (rho g R) = " << worst);
  CHECK(worst < 1e-8);

  // Divergence of the projected field: div = A p - b in every active cell.
  Real div2 = 0, divmax = 0;
  for (int r = 0; r < n; ++r) {
    const Real d = fluid::weighted_divergence(s.grid, s.fractions, s.velocity,
                                                 pressure.coord(system.active.cells[r]));
    div2 += d * d;
    divmax = std::max(divmax, std::abs(d));
  }
  MESSAGE("|div u| = " << std::sqrt(div2) << ", |b| = " << system.rhs.norm() << ", max |div| dx/(g dt) = "
                       << divmax * s.grid.dx / (g * dt));
  CHECK(std::sqrt(div2) <= settings.tolerance * system.rhs.norm() * (1 + 1e-6));
}

TEST_CASE("projection: ghost-fluid theta is clamped and exact for a linear interface") {
  CHECK(fluid::ghost_theta(-0.25, 0.75) == doctest::Approx(0.25));
  CHECK(fluid::ghost_theta(-1e-9, 1.0) == fluid::THETA_MIN);
  CHECK(fluid::ghost_theta(-1.0, 0.0) == 1);
}

TEST_CASE("projection: a sealed cavity full of liquid is still solvable") {
  grid::MacGrid g;
  g.resolution = {6, 6, 6};
  g.dx = 1.0 / 6;
  cutcell::FaceFractions f;
  const auto solid_phi = levelset::sample_solid_at_nodes(g, {});
  cutcell::compute_face_fractions(g, solid_phi, f);
  grid::Array3<Real> phi(g.cell_shape(), -1.0);
  grid::MacVelocity u = grid::make_velocity(g);
  u[1].fill(-0.1);
  grid::Array3<Real> p(g.cell_shape(), 0.0);
  fluid::FaceFlags valid;
  const auto sys = fluid::assemble_pressure(g, phi, f, u, 0.01, 1000);
  CHECK(sys.pinned_groups == 1);
  const auto report = fluid::project_pressure(g, phi, f, 0.01, 1000, {}, u, p, valid);
  CHECK(report.converged);
  Real umax = 0;
  for (int a = 0; a < 3; ++a)
    for (Index n = 0; n < u[a].count(); ++n)
      if (valid[a][n]) umax = std::max(umax, std::abs(u[a][n]));
  MESSAGE("max |u| after projecting a uniform flow in a sealed box: " << umax);
  CHECK(umax < 1e-9);
}
