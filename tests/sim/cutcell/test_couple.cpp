// Reduced bodies in the coupled projection (lib/sim/cutcell/couple.cpp, issue 22):
// the pressure block with dt J K_lambda J^T stays SPD, liquid and body see one
// velocity, every mode kept reproduces the full linear-FEM body's coupled
// step, and the scene's reduced keys are checked before anything runs.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/timer.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/cutcell/couple.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/stats.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

namespace fsicut {
namespace {

using linsolve::Vector;

// A 12^3 tank half full of water, a box crossing the surface (keys `box`) and
// a full sphere beside it.
std::string tank(const std::string& box) {
  return R"({ "grid": { "resolution": [12, 12, 12], "cell_size": 0.05 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.6, 0.3, 0.6] } ] },
    "solids": [ { "name": "box", "mesh": { "type": "box", "min": [0.12, 0.2, 0.15], "max": [0.32, 0.4, 0.33],
                  "cells": [2, 2, 2], "transform": { "rotate": [10, 20, 5] } },
                  "density": 700, "youngs_modulus": 1e4, "poisson_ratio": 0.3, )" +
         box + R"( },
                { "name": "ball", "mesh": { "type": "sphere", "center": [0.42, 0.3, 0.4], "radius": 0.09, "subdivisions": 1 },
                  "density": 500, "youngs_modulus": 5e4, "poisson_ratio": 0.3 } ] })";
}

// The state at the start of stage 5 of a first substep of dt, built by the
// stages fsicut runs (gravity on the full bodies' nodes; a reduced body takes
// it in its velocity step).
sim::CutCellSimulator at_projection(const std::string& text, Real dt) {
  sim::CutCellSimulator state = test::coupled_state(text);
  fluid::apply_gravity(*state.liquid, dt);
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    if (state.is_reduced(k)) continue;
    solid::Body& b = state.solids[k];
    for (Index i = 0; i < b.num_nodes(); ++i)
      if (!b.pinned[i]) b.v.col(i) += dt * state.scene.gravity;
  }
  sim::update_solid_fields(state);
  fluid::update_distance_fields(*state.liquid);
  return state;
}

}  // namespace

TEST_CASE("reduced body: the coupled system with dt J K_lambda J^T is SPD and leaves no net flux after the solve") {
  const Real dt = 0.01;
  for (const std::string keys : {R"("model": "reduced", "modes": 6, "velocity": [0.2, -0.5, 0.1])",
                                 R"("model": "reduced", "modes": 0, "velocity": [0, -1, 0])"}) {
    CAPTURE(keys);
    sim::CutCellSimulator state = at_projection(tank(keys), dt);
    REQUIRE(state.is_reduced(0));
    const sim::CoupledAssembly a = sim::assemble_coupled(state, dt);
    const coupling::CoupledSystem& sys = a.system;
    REQUIRE(a.reduced.size() == 1);
    const int rank = 6 + state.reduced[0]->basis.modes();
    CHECK(sys.low_rank.cols() == rank);
    CHECK(sys.low_rank.rows() == sys.cells());
    CHECK(sys.dofs() == state.solids[1].dofs.num_free_dofs());  // the reduced box adds no unknowns

    // (33) plus [U U^T 0; 0 0], dense: symmetric and positive definite.
    const coupling::SpdSystem spd = coupling::spd_system(sys, coupling::CoupledSettings{});
    Eigen::MatrixXd A = Eigen::MatrixXd(Eigen::SparseMatrix<Real>(spd.matrix));
    const Eigen::MatrixXd U = Eigen::MatrixXd(Eigen::SparseMatrix<Real>(sys.low_rank));
    A.topLeftCorner(sys.cells(), sys.cells()) += U * U.transpose();
    CHECK((A - A.transpose()).norm() <= 1e-14 * A.norm());
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A, Eigen::EigenvaluesOnly);
    MESSAGE(sys.cells() << " cells, " << sys.dofs() << " dofs, rank " << rank << ": eigenvalues "
                        << eig.eigenvalues().minCoeff() << " .. " << eig.eigenvalues().maxCoeff());
    CHECK(eig.eigenvalues().minCoeff() > 0);

    state.scene.coupling.tolerance = 1e-11;
    state.scene.coupling.max_iterations = 20000;
    const linsolve::Report r = sim::project_coupled(state, dt);
    REQUIRE(r.converged);
    // The box's nodes now move as its reduced state says, and the liquid's
    // faces balance that motion cell by cell.
    const solid::ReducedBody& box = *state.reduced[0];
    CHECK((solid::reduced_velocities(box.basis, box.state) - state.solids[0].v).cwiseAbs().maxCoeff() == 0);
    const Vector flux = sim::net_outflow(state, a);
    const Real cell_rate = 9.81 * dt * 0.05 * 0.05;
    MESSAGE("max |net outflow| " << flux.cwiseAbs().maxCoeff() << " m^3/s (one face's gravity flux " << cell_rate
                                 << "), " << r.iterations << " PCG iterations");
    CHECK(flux.cwiseAbs().maxCoeff() < 1e-8 * cell_rate);
  }
}

TEST_CASE("reduced body with every mode: one coupled step gives the full linear-FEM body's velocities") {
  // At the rest shape the corotated elements are linear FEM; with all modes
  // kept K_lambda is (M + dt C + dt^2 K)^-1, the full body's dt A_s^-1. The
  // free body has no mass damping: a reduced frame carries none (its rigid
  // motion is not Rayleigh-damped; docs/reduced.md).
  struct Case {
    const char* name;
    std::string keys;
  };
  const Case cases[] = {
      {"free", R"("velocity": [0.2, -0.5, 0.1], "damping": { "mass": 0, "stiffness": 0.01 })"},
      {"pinned", R"("damping": { "mass": 0.5, "stiffness": 0.01 },
                    "pinned": [ { "type": "box", "min": [0, 0, 0], "max": [0.6, 0.6, 0.2] } ])"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    sim::CutCellSimulator full = test::coupled_state(tank(c.keys));
    const int modes = full.solids[0].dofs.num_free_dofs() - (std::string(c.name) == "free" ? 6 : 0);
    sim::CutCellSimulator reduced =
        test::coupled_state(tank(c.keys + R"(, "model": "reduced", "modes": )" + std::to_string(modes)));
    REQUIRE(reduced.reduced[0]->basis.modes() == modes);
    const Real dt = 1.0 / 240;
    StageTimes times;
    REQUIRE(full.step(dt, times).worst_solve.converged);
    REQUIRE(reduced.step(dt, times).worst_solve.converged);
    const Points& vf = full.solids[0].v;
    const Points& vr = reduced.solids[0].v;
    const Real change = vf.cwiseAbs().maxCoeff();
    const Real dv = (vr - vf).cwiseAbs().maxCoeff();
    const std::vector<Real>&pf = full.liquid->pressure.data(), &pr = reduced.liquid->pressure.data();
    REQUIRE(pf.size() == pr.size());
    Real dp = 0, worst_dp = 0;
    for (std::size_t i = 0; i < pf.size(); ++i) {
      dp = std::max(dp, std::abs(pf[i]));
      worst_dp = std::max(worst_dp, std::abs(pf[i] - pr[i]));
    }
    MESSAGE(modes << " modes: max |v_reduced - v_full| " << dv << " m/s of max |v| " << change
                  << "; max |p_reduced - p_full| " << worst_dp << " Pa of " << dp);
    CHECK(dv <= 1e-8 * change);
    CHECK(worst_dp <= 1e-8 * dp);
    CHECK((reduced.solids[0].x - full.solids[0].x).cwiseAbs().maxCoeff() <= 1e-12);
  }
}

TEST_CASE("reduced body: stats report modes - modal energy - and both bodies' momenta") {
  sim::CutCellSimulator state = test::coupled_state(tank(R"("model": "reduced", "modes": 4, "velocity": [0.2, -0.5, 0.1])"));
  const nlohmann::json j = nlohmann::json::parse(sim::stats_line(state, {}));
  const auto& box = j["solids"][0];
  const auto& ball = j["solids"][1];
  CHECK(box["modes"] == 4);
  CHECK(box["modal_energy"].get<Real>() == 0);  // starts undeformed
  CHECK_FALSE(ball.contains("modes"));
  const Real m = state.solids[0].total_mass();
  CHECK(box["linear_momentum"][1].get<Real>() == doctest::Approx(-0.5 * m).epsilon(1e-12));
  CHECK(ball["angular_momentum"].size() == 3);
}

TEST_CASE("reduced body: bad reduced keys are refused naming the key") {
  const auto refused = [](const std::string& keys, const std::string& pointer, const std::string& words,
                          const std::string& extra = "") {
    std::string text = tank(keys);
    if (!extra.empty()) text.insert(text.rfind('}'), extra);
    try {
      test::coupled_state(text);
      FAIL("accepted: " << keys << extra);
    } catch (const SceneError& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(what.find(pointer) != std::string::npos);
      CHECK(what.find(words) != std::string::npos);
    }
  };
  refused(R"("modes": 4)", "/solids/0/modes", "applies to \"model\": \"reduced\" only");
  refused(R"("model": "reduced", "modes": -1)", "/solids/0/modes", "must be >= 0");
  refused(R"("model": "reduced", "modes": 76)", "/solids/0/modes", "has 75");
  refused(R"("model": "reduced", "initial_scale": 0.5)", "/solids/0/initial_scale", "rest shape");
  refused(R"("model": "rigid")", "/solids/0/model", "rigid");
  refused(R"("model": "reduced")", "/coupling/scheme", "spd", R"(, "coupling": { "scheme": "indefinite" })");
}

TEST_CASE("coupled projection: set-up kept across substeps gives the substeps of a fresh set-up bit for bit") {
  // Two full bodies in the tank, four substeps: one state keeps its spd
  // workspace (the solids' symbolic analyses, the lowered solid block's
  // pattern, the multigrid hierarchy when the active cells stay), the other
  // starts every substep with an empty one, as a resumed run does.
  const std::string text = tank(R"("velocity": [0.2, -0.5, 0.1])");
  sim::CutCellSimulator kept = test::coupled_state(text), fresh = test::coupled_state(text);
  const Real dt = 1.0 / 240;
  StageTimes times;
  for (int k = 0; k < 4; ++k) {
    fresh.spd_workspace = coupling::SpdWorkspace{};
    REQUIRE(kept.step(dt, times).worst_solve.converged);
    REQUIRE(fresh.step(dt, times).worst_solve.converged);
  }
  const coupling::SpdWorkspace::Counts& c = kept.spd_workspace.counts();
  MESSAGE("solid analyses kept " << c.solid_analyses_kept << ", built " << c.solid_analyses_built
                                 << "; hierarchies kept " << c.hierarchies_kept << ", built " << c.hierarchies_built);
  CHECK(c.solid_analyses_built == 1);
  CHECK(c.solid_analyses_kept == 3);
  CHECK(c.hierarchies_kept + c.hierarchies_built == 4);
  CHECK(c.solid_products_built == 1);
  CHECK(c.solid_products_kept == 3);
  CHECK(fresh.spd_workspace.counts().solid_analyses_kept == 0);
  CHECK(fresh.spd_workspace.counts().solid_products_kept == 0);
  for (std::size_t b = 0; b < kept.solids.size(); ++b) {
    CHECK(kept.solids[b].x == fresh.solids[b].x);
    CHECK(kept.solids[b].v == fresh.solids[b].v);
  }
  CHECK(kept.liquid->pressure.data() == fresh.liquid->pressure.data());
  CHECK(kept.liquid->particles == fresh.liquid->particles);
}

}  // namespace fsicut
