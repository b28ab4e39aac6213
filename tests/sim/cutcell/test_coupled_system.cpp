// The coupled systems (19) and (33) on real cut-cell geometry: symmetry,
// definiteness, agreement of the formulations, divergence after the projection.
#include <doctest/doctest.h>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>
#include <cstdio>
#include <random>
#include <string>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/sim/cutcell/couple.hpp"
#include "lib/solid/body.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

namespace fsicut {
namespace {

using coupling::SparseMatrix;
using coupling::Vector;

// A 16^3 tank half full of water with one solid crossing the surface, placed,
// turned and pinned at random (seed), gravity applied for one step of dt.
struct Placement {
  sim::CutCellSimulator state;
  sim::CoupledAssembly assembly;
};

std::string random_scene(unsigned seed, const std::string& element = "linear") {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(0, 1);
  const Real cx = 0.35 + 0.3 * u(rng), cy = 0.4 + 0.2 * u(rng), cz = 0.35 + 0.3 * u(rng);
  char mesh[400];
  if (seed % 2 == 0)
    std::snprintf(mesh, sizeof mesh,
                  R"({ "type": "box", "min": [-0.15, -0.1, -0.12], "max": [0.15, 0.1, 0.12], "cells": [5, 4, 4],
                       "transform": { "translate": [%.6f, %.6f, %.6f], "rotate": [%.3f, %.3f, %.3f] } })",
                  cx, cy, cz, 90 * u(rng), 90 * u(rng), 90 * u(rng));
  else
    std::snprintf(mesh, sizeof mesh, R"({ "type": "sphere", "center": [%.6f, %.6f, %.6f], "radius": 0.16, "subdivisions": 2 })",
                  cx, cy, cz);
  const std::string pinned = seed % 3 == 0 ? R"([ { "type": "sphere", "center": [)" + std::to_string(cx) + "," +
                                                 std::to_string(cy + 0.2) + "," + std::to_string(cz) +
                                                 R"(], "radius": 0.15 } ])"
                                           : "[]";
  return std::string(R"({ "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
    "solids": [ { "name": "s", "mesh": )") +
         mesh + R"(, "density": 700, "youngs_modulus": 2e5, "poisson_ratio": 0.3, "element": ")" + element + R"(",
      "damping": { "mass": 0.1, "stiffness": 0.001 }, "pinned": )" +
         pinned + " } ] }";
}

Placement place(unsigned seed, Real dt = 0.01, const std::string& element = "linear") {
  Placement p{test::coupled_state(random_scene(seed, element)), {}};
  fluid::apply_gravity(*p.state.liquid, dt);
  for (solid::Body& b : p.state.solids)
    for (Index i = 0; i < b.num_nodes(); ++i)
      if (!b.pinned[i]) b.v.col(i) += dt * p.state.scene.gravity;
  sim::update_solid_fields(p.state);
  fluid::update_distance_fields(*p.state.liquid);
  p.assembly = sim::assemble_coupled(p.state, dt);
  return p;
}

// A solid wholly under water in a 16^3 tank filled to 0.9 m: a box or a sphere,
// placed and turned at random, no pinned nodes.
std::string submerged_scene(unsigned seed, const std::string& element = "linear",
                           const std::string& damping = "{}") {
  std::mt19937 rng(seed + 100);
  std::uniform_real_distribution<Real> u(0, 1);
  const Real cx = 0.4 + 0.2 * u(rng), cy = 0.4 + 0.2 * u(rng), cz = 0.4 + 0.2 * u(rng);
  char mesh[400];
  if (seed % 2 == 0)
    std::snprintf(mesh, sizeof mesh,
                  R"({ "type": "box", "min": [-0.15, -0.1, -0.12], "max": [0.15, 0.1, 0.12], "cells": [5, 4, 4],
                       "transform": { "translate": [%.6f, %.6f, %.6f], "rotate": [%.3f, %.3f, %.3f] } })",
                  cx, cy, cz, seed < 2 ? 0.0 : 90 * u(rng), seed < 2 ? 0.0 : 90 * u(rng), seed < 2 ? 0.0 : 90 * u(rng));
  else
    std::snprintf(mesh, sizeof mesh, R"({ "type": "sphere", "center": [%.6f, %.6f, %.6f], "radius": 0.16, "subdivisions": 2 })",
                  cx, cy, cz);
  return std::string(R"({ "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.9, 1] } ] },
    "solids": [ { "name": "s", "mesh": )") +
         mesh + R"(, "density": 700, "youngs_modulus": 2e5, "poisson_ratio": 0.3, "element": ")" + element +
         R"(", "damping": )" + damping + " } ] }";
}

// Volume [m^3] enclosed by a body's boundary triangles (divergence theorem).
Real enclosed_volume(const solid::Body& b) {
  Real v = 0;
  for (const mesh::Triangle& t : b.mesh.boundary)
    v += b.x.col(t[0]).dot(b.x.col(t[1]).cross(b.x.col(t[2]))) / 6;
  return v;
}

// The sum of J^T p over the body of submerged_scene(seed, element) for the
// hydrostatic p = rho g (h - y) at the active cells' centres [N], and
// Archimedes' rho g V of its polyhedral surface [N].
struct Buoyancy {
  Vec3 force;
  Real archimedes = 0;
};
Buoyancy hydrostatic_force(unsigned seed, const std::string& element = "linear") {
  const Real rho = 1000, g = 9.81, h = 0.9;
  sim::CutCellSimulator state = test::coupled_state(submerged_scene(seed, element));
  sim::update_solid_fields(state);
  fluid::update_distance_fields(*state.liquid);
  const sim::CoupledAssembly a = sim::assemble_coupled(state, 0.01);
  const fluid::Liquid& l = *state.liquid;
  Vector p(a.system.cells());
  for (int r = 0; r < p.size(); ++r) {
    const Vec3i c = l.liquid_phi.coord(a.fluid.active.cells[r]);
    p[r] = rho * g * (h - l.grid.cell_center(c.x(), c.y(), c.z()).y());
  }
  const Vector f = a.system.coupling.transpose() * p;
  return {f.reshaped(3, f.size() / 3).rowwise().sum(), rho * g * enclosed_volume(state.solids[0])};
}

Real asymmetry(const SparseMatrix& A) { return SparseMatrix(A - SparseMatrix(A.transpose())).norm(); }

// Reference solution of (19) by sparse LU.
Vector direct_indefinite(const coupling::CoupledSystem& sys) {
  Eigen::SparseMatrix<Real> A = coupling::indefinite_matrix(sys);
  Eigen::SparseLU<Eigen::SparseMatrix<Real>> lu(A);
  REQUIRE(lu.info() == Eigen::Success);
  return lu.solve(coupling::indefinite_rhs(sys));
}

// A preconditioner of n unknowns applied to three pairs of random vectors
// (from `seed`): x'Py = y'Px to round-off and x'Px > 0.
void check_symmetric_positive(const linsolve::ApplyPreconditioner& apply, Index n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<Real> normal(0, 1);
  for (int k = 0; k < 3; ++k) {
    Vector x(n), y(n), px, py;
    for (Index i = 0; i < n; ++i) {
      x[i] = normal(rng);
      y[i] = normal(rng);
    }
    apply(x, px);
    apply(y, py);
    CHECK(std::abs(x.dot(py) - y.dot(px)) <= 1e-12 * x.norm() * py.norm());
    CHECK(x.dot(px) > 0);
  }
}

}  // namespace

TEST_SUITE("coupling") {
  TEST_CASE("coupled: the SPD system (33) is symmetric positive definite on random solid placements") {
    for (unsigned seed = 0; seed < 6; ++seed) {
      const Placement p = place(seed);
      const coupling::CoupledSystem& sys = p.assembly.system;
      REQUIRE(sys.cells() > 0);
      REQUIRE(sys.dofs() > 0);
      REQUIRE(sys.coupling.nonZeros() > 0);  // the solid touches active cells
      for (const bool automatic : {false, true}) {
        coupling::CoupledSettings s;
        if (automatic) s.alpha.reset();
        const coupling::SpdSystem spd = coupling::spd_system(sys, s);
        CHECK(asymmetry(spd.matrix) == 0);
        CHECK(asymmetry(coupling::indefinite_matrix(sys)) == 0);
        Eigen::SimplicialLLT<Eigen::SparseMatrix<Real>> llt(Eigen::SparseMatrix<Real>(spd.matrix));
        CHECK(llt.info() == Eigen::Success);
        std::mt19937 rng(seed);
        std::normal_distribution<Real> n(0, 1);
        Real min_ratio = 1e300;
        for (int k = 0; k < 20; ++k) {
          Vector x(spd.matrix.rows());
          for (Index i = 0; i < x.size(); ++i) x[i] = n(rng);
          min_ratio = std::min(min_ratio, x.dot(spd.matrix * x) / x.squaredNorm());
        }
        CHECK(min_ratio > 0);
        MESSAGE("seed " << seed << std::string(automatic ? " auto" : " static") << " alpha " << spd.alpha << ": "
                        << sys.cells() << " cells, " << sys.dofs() << " dofs, nonzeros indefinite "
                        << coupling::indefinite_matrix(sys).nonZeros() << " spd " << spd.matrix.nonZeros()
                        << ", min x'Ax/x'x " << min_ratio);
      }
    }
  }

  TEST_CASE("coupled: the pressure-block preconditioners are symmetric positive definite on A11 of (33)") {
    for (unsigned seed = 0; seed < 4; ++seed) {
      const Placement p = place(seed);
      const coupling::CoupledSystem& sys = p.assembly.system;
      REQUIRE(static_cast<int>(sys.grid_cells.size()) == sys.cells());
      const coupling::SpdSystem spd = coupling::spd_system(sys, {});
      const SparseMatrix a11 = spd.matrix.topLeftCorner(sys.cells(), sys.cells());
      REQUIRE(SparseMatrix(a11 - sys.fluid).norm() > 0);  // J Z1^-1 J^T is in it
      for (const auto kind : {linsolve::Preconditioner::incomplete_cholesky,
                              linsolve::Preconditioner::modified_incomplete_cholesky,
                              linsolve::Preconditioner::multigrid}) {
        CAPTURE(static_cast<int>(kind));
        const linsolve::ApplyPreconditioner apply = linsolve::make_preconditioner(kind, a11, sys.grid_cells);
        REQUIRE(apply);
        check_symmetric_positive(apply, a11.rows(), seed);
      }
    }
  }

  TEST_CASE("coupled: the preconditioner of (33) is symmetric positive definite") {
    // The block factorization through the pressure Schur complement that
    // solve_spd applies (spd_preconditioner), for every pressure preconditioner
    // and both alphas: PCG needs P symmetric and positive definite.
    for (unsigned seed = 0; seed < 4; ++seed) {
      const Placement p = place(seed);
      const coupling::CoupledSystem& sys = p.assembly.system;
      REQUIRE(sys.dofs() > 0);
      for (const auto kind : {linsolve::Preconditioner::incomplete_cholesky,
                              linsolve::Preconditioner::modified_incomplete_cholesky,
                              linsolve::Preconditioner::multigrid})
        for (const bool automatic : {false, true}) {
          CAPTURE(static_cast<int>(kind));
          CAPTURE(automatic);
          coupling::CoupledSettings s;
          s.preconditioner = kind;
          if (automatic) s.alpha.reset();
          const coupling::SpdSystem spd = coupling::spd_system(sys, s);
          const linsolve::ApplyPreconditioner apply = coupling::spd_preconditioner(sys, spd, s);
          REQUIRE(apply);
          check_symmetric_positive(apply, spd.matrix.rows(), seed);
        }
    }
  }

  TEST_CASE("coupled: with multigrid, PCG on (33) takes about as many iterations as on the liquid alone") {
    // The preconditioner's Schur complement form leaves the coupling no room to
    // slow PCG down: on solids wholly under water, the coupled solve stays
    // within a few iterations of the liquid-only solve of F (the block-diagonal
    // preconditioner it replaced took 34-52 iterations here against F's 21).
    for (unsigned seed = 0; seed < 4; ++seed) {
      sim::CutCellSimulator state = test::coupled_state(submerged_scene(seed));
      fluid::apply_gravity(*state.liquid, 0.01);
      sim::update_solid_fields(state);
      fluid::update_distance_fields(*state.liquid);
      const coupling::CoupledSystem sys = sim::assemble_coupled(state, 0.01).system;
      coupling::CoupledSettings s;
      const coupling::CoupledSolution x = coupling::solve_spd(sys, s, {});
      REQUIRE(x.report.converged);
      Vector p = Vector::Zero(sys.cells());
      linsolve::PcgSettings ps;
      const linsolve::Report liquid = linsolve::solve_pcg(
          sys.fluid, sys.fluid_rhs, p, ps,
          linsolve::make_preconditioner(linsolve::Preconditioner::multigrid, sys.fluid, sys.grid_cells));
      REQUIRE(liquid.converged);
      MESSAGE("seed " << seed << ": " << sys.cells() << " cells, " << sys.dofs() << " dofs: (33) "
                      << x.report.iterations << " PCG iterations, F alone " << liquid.iterations);
      CHECK(x.report.iterations <= liquid.iterations + 6);
    }
  }

  TEST_CASE("coupled: solving (33) reproduces the solution of (19)") {
    for (unsigned seed = 0; seed < 6; ++seed) {
      const Placement p = place(seed);
      const coupling::CoupledSystem& sys = p.assembly.system;
      const Vector ref = direct_indefinite(sys);
      const Vector p_ref = ref.head(sys.cells()), v_ref = ref.tail(sys.dofs());
      for (const auto kind : {linsolve::Preconditioner::incomplete_cholesky,
                              linsolve::Preconditioner::modified_incomplete_cholesky,
                              linsolve::Preconditioner::multigrid})
        for (const bool automatic : {false, true}) {
          coupling::CoupledSettings s;  // the default tolerance, 1e-10
          s.preconditioner = kind;
          if (automatic) s.alpha.reset();
          const coupling::CoupledSolution x = coupling::solve_spd(sys, s, {});
          const Real ep = (x.pressure - p_ref).norm() / p_ref.norm();
          const Real ev = (x.velocity - v_ref).norm() / v_ref.norm();
          MESSAGE("seed " << seed << std::string(automatic ? " auto" : " static") << " alpha " << x.alpha
                          << ", pressure preconditioner " << static_cast<int>(kind) << ": " << x.report.iterations
                          << " PCG iterations, relative error p " << ep << " v " << ev);
          CHECK(x.report.converged);
          CHECK(ep < 1e-8);
          CHECK(ev < 1e-8);
        }
      coupling::CoupledSettings s;
      const coupling::CoupledSolution b = coupling::solve_indefinite(sys, s, {});
      const Real ep = (b.pressure - p_ref).norm() / p_ref.norm();
      MESSAGE("seed " << seed << ": BiCGSTAB+ILU " << b.report.iterations << " iterations, relative error p " << ep);
      CHECK(b.report.converged);
    }
  }

  TEST_CASE("coupled: J^T of a hydrostatic pressure is the buoyancy rho g V at any placement") {
    // The nodal pressure forces of the linear field p = rho g (h - y), given
    // at the active cells' centres, must sum to Archimedes' rho g V (V of the
    // polyhedral surface) and have no sideways part, wherever the surface cuts
    // the cells. Sampling p at the patch's own cell centre instead (the paper's
    // N) is off by rho g A (y_centre - y_patch) per face: 0.06-6 % on these
    // placements.
    for (unsigned seed = 0; seed < 6; ++seed) {
      const auto [force, buoyancy] = hydrostatic_force(seed);
      MESSAGE("seed " << seed << ": sum J^T p = (" << force.transpose() << ") N, rho g V = " << buoyancy
                      << " N, relative error " << (force - Vec3(0, buoyancy, 0)).norm() / buoyancy);
      CHECK((force - Vec3(0, buoyancy, 0)).norm() < 1e-10 * buoyancy);
    }
  }

  TEST_CASE("coupled: after the projection every active cell's net flux vanishes") {
    for (unsigned seed = 0; seed < 4; ++seed) {
      Placement p = place(seed);
      p.state.scene.coupling.tolerance = 1e-11;
      p.state.scene.coupling.max_iterations = 20000;
      // project_coupled assembles again from the same state (gravity was applied once).
      const linsolve::Report r = sim::project_coupled(p.state, 0.01);
      REQUIRE(r.converged);
      const Vector flux = sim::net_outflow(p.state, p.assembly);
      // Scale: the volume rate gravity would push through one cell face in a step.
      const Real cell_rate = 9.81 * 0.01 * 0.0625 * 0.0625;
      const Real worst = flux.cwiseAbs().maxCoeff();
      MESSAGE("seed " << seed << ": max |net outflow| " << worst << " m^3/s over " << flux.size()
                      << " cells (one face's gravity flux " << cell_rate << ")");
      CHECK(worst < 1e-8 * cell_rate);
    }
  }
}

TEST_SUITE("coupling") {
  // Quadratic elements enter (33) through J's six-node weights on each curved
  // face's four flat sub-triangles (mesh/quadratic.hpp): the system stays SPD,
  // the solve agrees with (19), hydrostatic pressure gives Archimedes' force and
  // the projection leaves no net flux, as with linear elements.
  TEST_CASE("coupled: quadratic elements: (33) SPD - agrees with (19) - buoyancy rho g V - no net flux") {
    for (unsigned seed = 0; seed < 4; ++seed) {
      Placement p = place(seed, 0.01, "quadratic");
      REQUIRE(p.state.solids[0].quadratic());
      const coupling::CoupledSystem& sys = p.assembly.system;
      REQUIRE(sys.coupling.nonZeros() > 0);
      coupling::CoupledSettings settings;
      const coupling::SpdSystem spd = coupling::spd_system(sys, settings);
      CHECK(asymmetry(spd.matrix) == 0);
      Eigen::SimplicialLLT<Eigen::SparseMatrix<Real>> llt(Eigen::SparseMatrix<Real>(spd.matrix));
      CHECK(llt.info() == Eigen::Success);
      const Vector ref = direct_indefinite(sys);
      const coupling::CoupledSolution x = coupling::solve_spd(sys, settings, {});
      const Real ep = (x.pressure - ref.head(sys.cells())).norm() / ref.head(sys.cells()).norm();
      const Real ev = (x.velocity - ref.tail(sys.dofs())).norm() / ref.tail(sys.dofs()).norm();
      MESSAGE("seed " << seed << ": " << sys.cells() << " cells, " << sys.dofs() << " dofs, " << x.report.iterations
                      << " PCG iterations, relative error p " << ep << " v " << ev);
      CHECK(x.report.converged);
      CHECK(ep < 1e-8);
      CHECK(ev < 1e-8);

      p.state.scene.coupling.tolerance = 1e-11;
      p.state.scene.coupling.max_iterations = 20000;
      REQUIRE(sim::project_coupled(p.state, 0.01).converged);
      const Real worst = sim::net_outflow(p.state, p.assembly).cwiseAbs().maxCoeff();
      CHECK(worst < 1e-8 * 9.81 * 0.01 * 0.0625 * 0.0625);
    }
    for (unsigned seed = 0; seed < 4; ++seed) {
      const auto [force, buoyancy] = hydrostatic_force(seed, "quadratic");
      CHECK((force - Vec3(0, buoyancy, 0)).norm() < 1e-10 * buoyancy);
    }
  }

  // The coupled step changes a free solid's momentum by the pressure impulse
  // alone: elastic and stiffness-damping forces have no net force or torque
  // (K kills the rigid motions at rest), so with tau_m = 0 the second equation
  // of (19) summed over the nodes gives sum m (v - v*) = dt sum J^T p, and its
  // moments the same for the angular momentum about any point.
  TEST_CASE("coupled: the solve changes a free solid's linear and angular momentum by the pressure impulse") {
    for (const std::string element : {"linear", "quadratic"})
      for (unsigned seed = 0; seed < 4; ++seed) {
        CAPTURE(element);
        CAPTURE(seed);
        sim::CutCellSimulator state =
            test::coupled_state(submerged_scene(seed, element, R"({ "mass": 0, "stiffness": 0.002 })"));
        const Real dt = 0.01;
        fluid::apply_gravity(*state.liquid, dt);
        solid::Body& b = state.solids[0];
        b.v.colwise() += dt * state.scene.gravity;
        sim::update_solid_fields(state);
        fluid::update_distance_fields(*state.liquid);
        const sim::CoupledAssembly a = sim::assemble_coupled(state, dt);
        coupling::CoupledSettings settings;
        settings.tolerance = 1e-12;
        settings.max_iterations = 20000;
        const coupling::CoupledSolution x = coupling::solve_spd(a.system, settings, {});
        REQUIRE(x.report.converged);
        const Vector force = a.system.coupling.transpose() * x.pressure;  // [N] per free dof
        const Vec3 c = b.x * b.mass / b.total_mass();
        Vec3 dP = Vec3::Zero(), dL = Vec3::Zero(), impulse = Vec3::Zero(), moment = Vec3::Zero();
        for (int k = 0; k < b.dofs.num_free_nodes(); ++k) {
          const Index i = b.dofs.free_nodes[static_cast<std::size_t>(k)];
          const Vec3 r = b.x.col(i) - c;
          const Vec3 dv = x.velocity.segment<3>(3 * k) - b.v.col(i);
          dP += b.mass[i] * dv;
          dL += b.mass[i] * r.cross(dv);
          impulse += dt * force.segment<3>(3 * k);
          moment += dt * r.cross(Vec3(force.segment<3>(3 * k)));
        }
        const Real size = (b.x.rowwise().maxCoeff() - b.x.rowwise().minCoeff()).norm();
        MESSAGE("momentum change " << dP.transpose() << " vs pressure impulse " << impulse.transpose()
                                   << "; angular " << dL.transpose() << " vs " << moment.transpose());
        CHECK(impulse.norm() > 0.1 * b.total_mass() * dt * 9.81);  // the water pushes the body
        CHECK((dP - impulse).norm() < 1e-8 * impulse.norm());
        CHECK((dL - moment).norm() < 1e-8 * impulse.norm() * size);
      }
  }
}

}  // namespace fsicut
