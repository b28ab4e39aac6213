// Partitioned coupling (coupling/partitioned.hpp): both iterations reach the
// monolithic solution; plain iteration converges exactly where the theory of
// its error operator says; xpm converges where it does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "lib/core/error.hpp"
#include "lib/coupling/amplification.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/cutcell/active_cells.hpp"
#include "lib/cutcell/face_fractions.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/cutcell/couple.hpp"
#include "lib/sim/stats.hpp"
#include "lib/solid/body.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

namespace fsicut {
namespace {

using coupling::PartitionedSettings;
using coupling::Vector;

// A 16^3 tank half full, a free box of `density` crossing the surface,
// gravity applied for one step of dt = 0.01 s: the system of the next projection.
coupling::CoupledSystem light_box_system(Real density) {
  sim::CutCellSimulator state = test::coupled_state(R"({ "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
    "solids": [ { "name": "box", "mesh": { "type": "box", "min": [0.3, 0.4, 0.35], "max": [0.7, 0.6, 0.65], "cells": [4, 2, 3] },
                  "density": )" + std::to_string(density) + R"(, "youngs_modulus": 1e6, "poisson_ratio": 0.3 } ] })");
  const Real dt = 0.01;
  fluid::apply_gravity(*state.liquid, dt);
  for (solid::Body& b : state.solids) b.v.colwise() += dt * state.scene.gravity;
  sim::update_solid_fields(state);
  fluid::update_distance_fields(*state.liquid);
  return sim::assemble_coupled(state, dt).system;
}

// The same system with the solid's operator A_s (and its right side) divided
// by c: the weak amplification T = A_s^-1 J^T F^-1 J becomes c T, so its
// spectral radius can be placed anywhere.
coupling::CoupledSystem scaled(coupling::CoupledSystem sys, Real c) {
  sys.solid.mass_term /= c;
  sys.solid.stiffness_term /= c;
  sys.solid.rhs /= c;
  return sys;
}

PartitionedSettings settings(PartitionedSettings::Method method, Real relaxation, int max_iterations,
                             Real tolerance = 1e-9) {
  PartitionedSettings s;
  s.method = method;
  s.relaxation = relaxation;
  s.max_iterations = max_iterations;
  s.tolerance = tolerance;
  return s;
}

Real relative(const Vector& a, const Vector& b) { return (a - b).norm() / b.norm(); }

// A 10^3 tank half full, a 300 kg/m^3 box floating in it, with coupling/scheme
// `scheme` and coupling/partitioned `partitioned` (a JSON object).
std::string floating_box(const std::string& scheme, const std::string& partitioned) {
  return R"({ "grid": { "resolution": [10, 10, 10], "cell_size": 0.1 }, "time": { "fps": 30, "frames": 1 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
    "solids": [ { "name": "box", "mesh": { "type": "box", "min": [0.3, 0.4, 0.3], "max": [0.7, 0.6, 0.7], "cells": [2, 1, 2] },
                  "density": 300, "youngs_modulus": 1e6, "poisson_ratio": 0.3 } ],
    "coupling": { "scheme": ")" + scheme + R"(", "partitioned": )" + partitioned + " } }";
}

// Runs `scene` for 0.2 s through sim::advance_to, fsicut's driver.
std::pair<sim::CutCellSimulator, sim::FrameStats> run_for_a_while(const std::string& scene) {
  sim::CutCellSimulator state = test::coupled_state(scene);
  sim::FrameStats tally;
  StageTimes times;
  sim::advance_to(state, 0.2, tally, times, {});
  return {std::move(state), tally};
}


// The momentum the liquid, the solids and the rest (walls, static obstacles,
// air) exchange in one coupled projection of `scene` (stage 5 as CutCellSimulator::step runs
// it, after gravity and stage 4), each [kg m/s]:
//  - liquid: sum over faces of rho w_f dx^3 (u_after - u_before), w the open
//    face fractions (the liquid's discrete momentum, that of its kinetic energy);
//  - solids: sum over nodes of m (v_after - v_before);
//  - rest: what each pressure p_i pushes the liquid with through the faces the
//    walls and static obstacles leave open, dt p_i dx^2 sum_a (w_static,i+1/2 -
//    w_static,i-1/2) e_a, plus what the air adds at the free-surface faces
//    beyond their liquid cell's own pressure (the ghost-fluid value).
struct MomentumExchange {
  Vec3 liquid = Vec3::Zero(), solids = Vec3::Zero(), rest = Vec3::Zero();
  Real scale = 0;  // the largest single face's or node's change, for round-off
};

MomentumExchange exchange_in_projection(const std::string& scene) {
  sim::CutCellSimulator state = test::coupled_state(scene);
  const Real dt = 0.01;
  fluid::Liquid& liquid = *state.liquid;
  fluid::apply_gravity(liquid, dt);
  for (solid::Body& b : state.solids) b.v.colwise() += dt * state.scene.gravity;
  sim::update_solid_fields(state);
  fluid::update_distance_fields(liquid);
  const grid::MacVelocity before = liquid.velocity;
  std::vector<Points> v_before;
  for (const solid::Body& b : state.solids) v_before.push_back(b.v);
  std::optional<coupling::PartitionedReport> report;
  sim::project_coupled(state, dt, {}, &report);
  REQUIRE(report);

  const grid::MacGrid& g = liquid.grid;
  const Real dx = g.dx, rho = liquid.density;
  cutcell::FaceFractions open_without_solids;
  cutcell::compute_face_fractions(g, liquid.static_phi, open_without_solids);
  const auto active = [&](const Vec3i& c) {
    return liquid.liquid_phi.inside(c.x(), c.y(), c.z()) && liquid.liquid_phi(c) < 0 &&
           liquid.pressure(c) != 0;
  };
  MomentumExchange m;
  for (int a = 0; a < 3; ++a)
    for (Index idx = 0; idx < liquid.velocity[a].count(); ++idx) {
      const Real change = rho * liquid.fractions[a][idx] * dx * dx * dx * (liquid.velocity[a][idx] - before[a][idx]);
      m.liquid[a] += change;
      m.scale = std::max(m.scale, std::abs(change));
      if (change == 0) continue;
      const Vec3i f = liquid.velocity[a].coord(idx);
      Vec3i left = f;
      left[a] -= 1;
      const bool la = active(left), ra = active(f);
      // A free-surface face: the air's share is what the face got beyond its
      // liquid cell's own pressure acting alone (p = 0 on the air side).
      if (la != ra) {
        const Real own = la ? dt * dx * dx * liquid.fractions[a][idx] * liquid.pressure(left)
                            : -dt * dx * dx * liquid.fractions[a][idx] * liquid.pressure(f);
        m.rest[a] += change - own;
      }
    }
  for (Index idx = 0; idx < liquid.pressure.count(); ++idx) {
    const Vec3i c = liquid.pressure.coord(idx);
    if (liquid.pressure[idx] == 0) continue;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1})
        m.rest[a] += dt * liquid.pressure[idx] * dx * dx * side *
                     cutcell::cell_face_fraction(open_without_solids, a, side, c);
  }
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    const solid::Body& body = state.solids[b];
    for (Index n = 0; n < body.v.cols(); ++n) {
      const Vec3 change = body.mass[n] * (body.v.col(n) - v_before[b].col(n));
      m.solids += change;
      m.scale = std::max(m.scale, change.cwiseAbs().maxCoeff());
    }
  }
  return m;
}

}  // namespace

TEST_SUITE("coupling") {
  TEST_CASE("partitioned: relaxed and xpm iterations reproduce the spd solution at a tight tolerance") {
    const coupling::CoupledSystem sys = light_box_system(500);
    coupling::CoupledSettings cs;
    const coupling::CoupledSolution ref = coupling::solve_spd(sys, cs, {});
    REQUIRE(ref.report.converged);
    const Real rho = coupling::weak_amplification(sys).spectral_radius;
    for (const auto method : {PartitionedSettings::Method::relaxed, PartitionedSettings::Method::xpm}) {
      // omega (1 + rho) = 1: the relaxed iteration's fastest contraction.
      const auto x = coupling::solve_partitioned(sys, cs, settings(method, 1 / (1 + rho), 500, 1e-11), {});
      MESSAGE("method " << static_cast<int>(method) << ": " << x.partitioned.iterations
                        << " iterations, interface residual " << x.partitioned.interface_residual << " m/s; weak radius "
                        << rho << "; relative error p " << relative(x.solution.pressure, ref.pressure) << ", v "
                        << relative(x.solution.velocity, ref.velocity));
      REQUIRE(x.partitioned.converged);
      CHECK(x.solution.report.converged);
      CHECK(relative(x.solution.pressure, ref.pressure) < 1e-7);
      CHECK(relative(x.solution.velocity, ref.velocity) < 1e-7);
    }
  }

  TEST_CASE("partitioned: one relaxed pass with omega = 1 is the weak scheme") {
    const coupling::CoupledSystem sys = light_box_system(500);
    coupling::CoupledSettings cs;
    const coupling::CoupledSolution weak = coupling::solve_weak(sys, cs, {});
    const auto one = coupling::solve_partitioned(sys, cs, settings(PartitionedSettings::Method::relaxed, 1, 1), {});
    CHECK(one.partitioned.iterations == 1);
    CHECK(relative(one.solution.velocity, weak.velocity) < 1e-8);
    CHECK(relative(one.solution.pressure, weak.pressure) < 1e-8);
  }

  TEST_CASE("partitioned: relaxation converges iff omega (1 + rho) < 2 - xpm converges on both sides") {
    // rho the spectral radius of the weak amplification T; the relaxed error
    // operator (1 - omega) I - omega T has eigenvalues 1 - omega (1 + lambda).
    const coupling::CoupledSystem base = light_box_system(500);
    const Real rho0 = coupling::weak_amplification(base).spectral_radius;
    REQUIRE(rho0 > 0);
    coupling::CoupledSettings cs;
    for (const Real rho : {0.8, 1.25}) {
      const coupling::CoupledSystem sys = scaled(base, rho / rho0);
      REQUIRE(coupling::weak_amplification(sys).spectral_radius == doctest::Approx(rho).epsilon(1e-4));
      const Real vscale = coupling::solve_spd(sys, cs, {}).velocity.cwiseAbs().maxCoeff();
      auto run = [&](PartitionedSettings::Method method, Real omega) {
        const auto x = coupling::solve_partitioned(sys, cs, settings(method, omega, 400, 1e-8 * vscale), {});
        MESSAGE("rho " << rho << ", method " << static_cast<int>(method) << ", omega " << omega << ": "
                       << std::string(x.partitioned.converged ? "converged" : "did not converge") << " after "
                       << x.partitioned.iterations << " iterations, residual " << x.partitioned.interface_residual);
        return x.partitioned;
      };
      // Just inside and just outside the bound 2 / (1 + rho).
      const Real bound = 2 / (1 + rho);
      CHECK(run(PartitionedSettings::Method::relaxed, std::min(1.0, 0.9 * bound)).converged);
      if (bound < 1) {
        const coupling::PartitionedReport out = run(PartitionedSettings::Method::relaxed, std::min(1.0, 1.05 * bound));
        CHECK_FALSE(out.converged);
        const coupling::PartitionedReport plain = run(PartitionedSettings::Method::relaxed, 1);
        CHECK_FALSE(plain.converged);
        CHECK_FALSE(plain.interface_residual < vscale);  // it grew, not stalled
      } else {
        const coupling::PartitionedReport plain = run(PartitionedSettings::Method::relaxed, 1);
        CHECK(plain.converged);
        const coupling::PartitionedReport xpm = run(PartitionedSettings::Method::xpm, 1);
        CHECK(xpm.iterations < plain.iterations);
      }
      CHECK(run(PartitionedSettings::Method::xpm, 1).converged);
    }
  }

  TEST_CASE("partitioned: an iteration that misses its tolerance is a solver failure that names it") {
    const coupling::CoupledSystem sys = scaled(light_box_system(500), 10);
    coupling::CoupledSettings cs;
    const auto x = coupling::solve_partitioned(sys, cs, settings(PartitionedSettings::Method::relaxed, 1, 5), {});
    CHECK_FALSE(x.partitioned.converged);
    CHECK(x.partitioned.iterations == 5);
    CHECK_FALSE(x.solution.report.converged);
    CHECK(x.solution.report.failure.find("partitioned iteration did not converge") != std::string::npos);
  }

  TEST_CASE("partitioned: fsicut's stepping path with xpm follows spd and reports its iterations") {
    const std::string tight = R"({ "tolerance": 1e-9, "max_iterations": 60 })";
    const Points start = test::coupled_state(floating_box("spd", tight)).solids[0].x;
    const auto [spd, spd_stats] = run_for_a_while(floating_box("spd", tight));
    const auto [xpm, xpm_stats] = run_for_a_while(floating_box("xpm", tight));
    REQUIRE(xpm_stats.partitioned);
    CHECK_FALSE(spd_stats.partitioned);
    const coupling::PartitionedReport& p = *xpm_stats.partitioned;
    MESSAGE("xpm: " << xpm_stats.substeps << " substeps, at most " << p.iterations << " iterations, residual "
                    << p.interface_residual << " m/s; seconds fluid " << p.fluid_seconds << ", solid "
                    << p.solid_seconds << ", interface " << p.interface_seconds << "; node positions differ from spd by "
                    << (xpm.solids[0].x - spd.solids[0].x).cwiseAbs().maxCoeff() << " m (moved "
                    << (spd.solids[0].x - start).cwiseAbs().maxCoeff() << " m)");
    CHECK(p.converged);
    CHECK(p.iterations >= 2);
    CHECK((spd.solids[0].x - start).cwiseAbs().maxCoeff() > 1e-3);
    CHECK((xpm.solids[0].x - spd.solids[0].x).cwiseAbs().maxCoeff() < 1e-6);
    const std::string line = sim::stats_line(xpm, xpm_stats);
    for (const char* key : {"\"coupling_iterations\"", "\"interface_residual\"", "\"fluid_seconds\"",
                            "\"solid_seconds\"", "\"interface_seconds\""})
      CHECK(line.find(key) != std::string::npos);
  }
}

TEST_SUITE("coupling") {
  TEST_CASE("partitioned: recompute_geometry moves the solids for every liquid solve and stays near spd") {
    // The liquid sees the solids at x^n + dt v instead of x^n: a different
    // (more implicit) geometry, so the trajectories differ by about dt |v|
    // per substep, not by the solver tolerance. The map from v to the liquid's
    // force is no longer linear (cut cells open and close as the solid moves):
    // at the paper's 0.05 cells xpm stopped 0.056 m from spd here, at 0.005
    // cells 0.006 m, so the test uses 0.005. xpm is not checked here: on this
    // geometry its iteration is no contraction (over particle seeds 1..12 it
    // stopped unconverged at 60 iterations for 2, before the liquid beside a
    // body was seeded by sub-cell centres for 5, and where it converged it
    // could end 0.11 m from spd), which scenes/README says of the key.
    auto partitioned = [](bool geometry) {
      return std::string(R"({ "recompute_geometry": )") + (geometry ? "true" : "false") +
             R"(, "relaxation": 0.3, "tolerance": 0.005, "max_iterations": 60 })";
    };
    const auto [spd, spd_stats] = run_for_a_while(floating_box("spd", partitioned(false)));
    for (const std::string scheme : {"partitioned"}) {
      const auto [fixed, fixed_stats] = run_for_a_while(floating_box(scheme, partitioned(false)));
      MESSAGE(scheme << " on the substep's geometry: positions differ from spd by " << (fixed.solids[0].x - spd.solids[0].x).cwiseAbs().maxCoeff());
      const auto [moved, stats] = run_for_a_while(floating_box(scheme, partitioned(true)));
      REQUIRE(stats.partitioned);
      const Real gap = (moved.solids[0].x - spd.solids[0].x).cwiseAbs().maxCoeff();
      const Real fall = (spd.solids[0].v).cwiseAbs().maxCoeff() * 0.2;
      MESSAGE(scheme << " with the geometry stage in every liquid solve: at most " << stats.partitioned->iterations
                     << " iterations per substep; node positions differ from spd by " << gap << " m (spd's nodes move "
                     << fall << " m at their final speed over the run)");
      CHECK(stats.partitioned->converged);
      CHECK(gap > 0);
      CHECK(gap < 0.1 * moved.scene.grid.cell_size);
    }
  }
}

TEST_SUITE("coupling") {
  TEST_CASE("partitioned: conservative impulses conserve momentum to round-off - pressure impulses do not") {
    // A free, undamped box crossing the surface of a tank: the liquid, the box
    // and the rest (walls, air) exchange momentum in the projection. With
    // conservative impulses what the box gets is what the liquid's faces lost
    // to it, whatever the pressure: the balance closes to round-off of the
    // largest single change. With J^T p (the work-conjugate force) it closes
    // only to discretization error.
    const auto scene = [](const std::string& impulses) {
      return std::string(R"({ "grid": { "resolution": [12, 12, 12], "cell_size": 0.09 },
        "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1.08, 0.5, 1.08] } ] },
        "solids": [ { "name": "box", "mesh": { "type": "box", "min": [0.31, 0.37, 0.33], "max": [0.69, 0.61, 0.62], "cells": [3, 2, 3] },
                      "density": 400, "youngs_modulus": 1e6, "poisson_ratio": 0.3 } ],
        "coupling": { "scheme": "partitioned", "partitioned": { "relaxation": 0.5, "tolerance": 1e-6, "max_iterations": 200, "impulses": ")") +
             impulses + R"(" } } })";
    };
    const MomentumExchange conservative = exchange_in_projection(scene("conservative"));
    const MomentumExchange pressure = exchange_in_projection(scene("pressure"));
    const Real round_off = 1e-12 * conservative.scale * 12 * 12 * 12;
    const Real conservative_gap = (conservative.liquid + conservative.solids - conservative.rest).norm();
    const Real pressure_gap = (pressure.liquid + pressure.solids - pressure.rest).norm();
    MESSAGE("momentum changes [kg m/s]: solids " << conservative.solids.transpose() << ", liquid "
            << conservative.liquid.transpose() << "; liquid + solids - rest: conservative " << conservative_gap
            << ", pressure " << pressure_gap << " (solids got " << pressure.solids.transpose() << ")");
    CHECK(conservative.solids.norm() > 1e3 * round_off);
    CHECK(conservative_gap < round_off);
    CHECK(pressure_gap > 1e3 * round_off);
  }
}

TEST_CASE("scene: coupling/partitioned keys are read and checked") {
  const std::string head = R"({ "grid": { "resolution": [4, 4, 4], "cell_size": 0.25 }, "coupling": { "scheme": "partitioned", "partitioned": )";
  const scene::Scene s = scene::parse_scene(
      head + R"({ "relaxation": 0.3, "tolerance": 0.01, "max_iterations": 12, "recompute_geometry": true, "impulses": "conservative" } } })", "t.json", ".");
  CHECK(s.coupling.partitioned.recompute_geometry);
  CHECK(s.coupling.partitioned.impulses == scene::Partitioned::Impulses::conservative);
  CHECK(scene::parse_scene(head + "{} } }", "t.json", ".").coupling.partitioned.impulses ==
        scene::Partitioned::Impulses::pressure);
  CHECK(s.coupling.scheme == scene::Coupling::Scheme::partitioned);
  CHECK(s.coupling.partitioned.relaxation == 0.3);
  CHECK(s.coupling.partitioned.tolerance == 0.01);
  CHECK(s.coupling.partitioned.max_iterations == 12);
  try {
    scene::parse_scene(head + R"({ "relaxation": 1.5 } } })", "t.json", ".");
    FAIL("relaxation 1.5 was accepted");
  } catch (const SceneError& e) {
    CHECK(std::string(e.what()).find("/coupling/partitioned/relaxation") != std::string::npos);
  }
  try {
    scene::parse_scene(head + R"({ "omega": 0.5 } } })", "t.json", ".");
    FAIL("an unknown key was accepted");
  } catch (const SceneError& e) {
    CHECK(std::string(e.what()).find("/coupling/partitioned/omega") != std::string::npos);
  }
  try {
    scene::parse_scene(head + R"({ "impulses": "interpolated" } } })", "t.json", ".");
    FAIL("an unknown impulses value was accepted");
  } catch (const SceneError& e) {
    CHECK(std::string(e.what()).find("/coupling/partitioned/impulses") != std::string::npos);
  }
}

}  // namespace fsicut
