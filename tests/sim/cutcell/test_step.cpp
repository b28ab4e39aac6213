// One substep (lib/sim/cutcell/step.hpp), solids without liquid: every backward Euler
// velocity solve (6) of a clamped cantilever completes, whatever its elements,
// layers and stiffness, through the loader and driver `fsicut` runs; and what a
// substep does with a solve that cannot be trusted.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "lib/core/error.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/solid/integrate.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

using namespace fsicut;

namespace {

// A 1 m x 0.1 m x 0.1 m cantilever clamped at x = 0, 20 cells long and
// `layers` x `layers` across, density 1000 kg/m^3, mass damping 30 1/s, on a
// 16^3 grid with no liquid (one substep per 30 fps frame).
std::string cantilever(const std::string& element, int layers, Real youngs_modulus) {
  std::ostringstream s;
  s << R"({ "grid": { "resolution": [16, 16, 16], "origin": [-0.1, -0.6, -0.6], "cell_size": 0.075 },
            "time": { "fps": 30 },
            "solids": [ { "name": "beam", "element": ")"
    << element << R"(",
              "mesh": { "type": "box", "min": [0, 0, -0.05], "max": [1, 0.1, 0.05], "cells": [20, )"
    << layers << ", " << layers << R"(] },
              "density": 1000, "youngs_modulus": )"
    << youngs_modulus << R"(, "poisson_ratio": 0.3, "damping": { "mass": 30 },
              "pinned": [ { "type": "box", "min": [-0.01, -0.01, -0.06], "max": [0.001, 0.11, 0.06] } ] } ] })";
  return s.str();
}

}  // namespace

TEST_CASE("step: a clamped cantilever's velocity solves all complete - linear and quadratic - 1 to 4 layers - E 1e5 to 1e11 Pa") {
  // The quadratic 20 x 2 x 2 beam at E = 1e11 Pa and the 20 x 4 x 4 one at
  // 1e8 Pa used to stop the run on their first substep (Jacobi-like PCG
  // stagnating just above its 1e-10 tolerance: exit 70).
  constexpr int SUBSTEPS = 3;
  for (const char* element : {"linear", "quadratic"})
    for (int layers = 1; layers <= 4; ++layers)
      for (Real E : {1e5, 1e8, 1e11}) {
        std::ostringstream name;
        name << element << ", " << layers << " layers, E " << E << " Pa";
        sim::CutCellSimulator state = test::coupled_state(cantilever(element, layers, E));
        const Vec3 rest_centroid = solid::stats(state.solids[0]).centroid;
        int solves = 0, converged = 0;
        int worst_iterations = 0;
        Real worst_residual = 0;
        sim::AdvanceHooks hooks;
        hooks.after_substep = [&](const sim::Simulator&, const sim::StepReport& r) {
          solves += r.solve_count;
          converged += r.worst_solve.converged ? 1 : 0;
          worst_iterations = std::max(worst_iterations, r.worst_solve.iterations);
          worst_residual = std::max<Real>(worst_residual, r.worst_solve.relative_residual);
        };
        std::string error;
        try {
          sim::advance_frames_to(state, SUBSTEPS / state.scene.time.fps, hooks);
        } catch (const SimulationError& e) {
          error = e.what();
        }
        INFO(name.str() << ": " << solves << " solves, worst " << worst_iterations << " iterations at relative residual "
                        << worst_residual << (error.empty() ? "" : "; " + error));
        CHECK(error.empty());
        CHECK(solves == SUBSTEPS);
        CHECK(converged == SUBSTEPS);
        // Under gravity, clamped: the beam sags and stays finite.
        const Vec3 centroid = solid::stats(state.solids[0]).centroid;
        CHECK(centroid.allFinite());
        CHECK(centroid.y() < rest_centroid.y());
      }
}

namespace fsicut {

TEST_CASE("step: a solve whose residual is not finite is an error even with allow_unconverged - not a warning with nan") {
  // A NaN in one face velocity inside the liquid reaches the projection's
  // right side: its PCG residual is NaN. allow_unconverged lets a solve that
  // stops early through; this used to be let through as well, with the
  // warning "relative residual -nan", and the run exited 0.
  const std::string solid =
      R"("solids": [ { "name": "b", "mesh": { "type": "box", "min": [0.25, 0.6, 0.25], "max": [0.75, 0.8, 0.75] } } ],)";
  for (const std::string& keys : {solid + R"( "coupling": { "allow_unconverged": true, "scheme": "partitioned" } })",
                                  std::string(R"( "coupling": { "allow_unconverged": true } })")}) {
    CAPTURE(keys);
    sim::CutCellSimulator state = test::coupled_state(R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },)" + keys);
    state.liquid->velocity[1](4, 2, 4) = std::numeric_limits<Real>::quiet_NaN();
    StageTimes times;
    std::string message;
    try {
      state.step(0.01, times);
    } catch (const SimulationError& e) {
      message = e.what();
    }
    MESSAGE(message);
    CHECK(message.find("not finite") != std::string::npos);
    CHECK(message.find("nan") == std::string::npos);
  }
}

}  // namespace fsicut

namespace {

// A 0.8 x 0.8 x 0.2 m tank of 16 x 16 x 4 cells, water 0.4 m deep.
std::string pool() {
  return R"({ "grid": { "resolution": [16, 16, 4], "origin": [0, 0, 0], "cell_size": 0.05 },
              "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.8, 0.4, 0.2] } ] } })";
}

// The largest smoothed liquid fraction of the liquid's particles.
Real max_fraction(const fluid::Liquid& l) {
  grid::Array3<Real> rho;
  levelset::liquid_fraction_from_particles(l.grid, l.particles, l.particle_volume, l.solid_phi, rho);
  return *std::max_element(rho.data().begin(), rho.data().end());
}

}  // namespace

TEST_CASE("step: a still pool keeps its particles exactly where the flow leaves them - the density correction does nothing") {
  sim::CutCellSimulator on = test::coupled_state(pool());
  sim::CutCellSimulator off = test::coupled_state(pool());
  off.scene.fluid.density_correction = false;
  REQUIRE(on.scene.fluid.density_correction);
  const Points seeded = on.liquid->particles;
  test::advance(on, 0.5);
  test::advance(off, 0.5);
  // The projection's residual currents move them a little; the correction adds nothing.
  MESSAGE("largest particle motion in 0.5 s " << (on.liquid->particles - seeded).cwiseAbs().maxCoeff() << " m");
  CHECK((on.liquid->particles - off.liquid->particles).cwiseAbs().maxCoeff() == 0);
}

TEST_CASE("step: packed water beside a thin wall spreads out again and none of it crosses the wall") {
  // The tank with a static wall half a cell thick at x = 0.41 .. 0.435 m (every
  // grid node outside it), no gravity; the water left of it squeezed against it.
  sim::CutCellSimulator s = test::coupled_state(R"({ "gravity": [0, 0, 0],
      "grid": { "resolution": [16, 16, 4], "origin": [0, 0, 0], "cell_size": 0.05 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.4, 0.4, 0.2] } ] },
      "obstacles": [ { "type": "box", "min": [0.41, -0.1, -0.1], "max": [0.435, 1, 0.3] } ] })");
  fluid::Liquid& l = *s.liquid;
  for (Index p = 0; p < l.particles.cols(); ++p)
    if (l.particles(0, p) > 0.2) l.particles(0, p) = 0.4 - 0.6 * (0.4 - l.particles(0, p));
  const Real packed = max_fraction(l);
  StageTimes times;
  Real front = 0;
  for (int k = 0; k < 20; ++k) {
    s.step(0.01, times);
    front = std::max(front, l.particles.row(0).maxCoeff());
  }
  const Real after = max_fraction(l);
  MESSAGE("max rho packed " << packed << ", after 20 substeps " << after << "; foremost particle at x = " << front
                            << " m, the wall's face at 0.41 m");
  CHECK(packed > 1.5);
  CHECK(after < 1.2);
  CHECK(front < 0.41);
}
