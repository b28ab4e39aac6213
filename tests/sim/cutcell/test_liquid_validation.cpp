// The free-surface liquid with static boundaries, stepped by the driver fsicut
// runs (sim::advance_frames_to): a falling ball, thread independence, and the
// long physical validations (doctest suite "validation", ctest label validation).
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>

#include "lib/fluid/liquid.hpp"
#include "lib/core/parallel.hpp"
#include "lib/fluid/packing.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/from_scene.hpp"
#include "tests/sim/cutcell/liquid_support.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::fluid;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("liquid: a falling ball follows y0 - g t^2 / 2") {
  grid::MacGrid g;
  g.resolution = {16, 40, 16};
  g.dx = 0.025;  // 0.4 x 1.0 x 0.4 m
  const Real grav = 9.81;
  Liquid built = make_liquid(g, 1000, Vec3(0, -grav, 0), {});
  const Vec3 c0(0.2, 0.85, 0.2);
  add_liquid(built, [&](const Vec3& x) { return (x - c0).norm() < 0.1; }, Vec3::Zero(), 8, 3);
  initialize(built);
  // Algorithm 1 moves the particles before gravity acts, a lag of g t dt / 2: the
  // error relative to the drop is dt / t, so 1 % needs dt <= t / 100.
  const Real max_dt = 0.002;
  sim::CutCellSimulator state = test::liquid_state(std::move(built), 1.0, max_dt);
  Liquid& l = *state.liquid;
  const Real y0 = particle_centroid(l).y();
  const Real duration = 0.3;
  Real worst = 0;
  const int steps = test::simulate(state, duration, [&](Real t, const linsolve::Report& r) {
    REQUIRE(r.converged);
    const Real expected = y0 - 0.5 * grav * t * t;
    worst = std::max(worst, std::abs(particle_centroid(l).y() - expected));
  });
  const Real drop = 0.5 * grav * duration * duration;
  MESSAGE(steps << " steps; worst centroid error " << worst << " m = " << 100 * worst / drop
                << " % of the " << drop << " m drop");
  CHECK(worst < 0.01 * drop);
}


TEST_CASE("liquid: results do not depend on the thread count") {
  auto run = [](int threads) {
    set_threads(threads);
    grid::MacGrid g;
    g.resolution = {24, 16, 3};
    g.dx = 1.0 / 24;
    Liquid l = make_liquid(g, 1000, Vec3(0, -9.81, 0),
                           levelset::sphere_solid(Vec3(0.5, -0.3, 0), 0.45, false));
    add_liquid(l, [](const Vec3& x) { return x.x() < 0.3 && x.y() < 0.5; }, Vec3::Zero(), 8, 5);
    initialize(l);
    sim::CutCellSimulator state = test::liquid_state(std::move(l), 1.0, 0.01);
    sim::advance_frames_to(state, 0.08);
    return std::move(*state.liquid);
  };
  const Liquid a = run(1);
  const Liquid b = run(2);
  set_threads(0);
  REQUIRE(a.particles.cols() == b.particles.cols());
  const Real dp = (a.particles - b.particles).cwiseAbs().maxCoeff();
  Real du = 0;
  for (int ax = 0; ax < 3; ++ax)
    for (Index f = 0; f < a.velocity[ax].count(); ++f)
      du = std::max(du, std::abs(a.velocity[ax][f] - b.velocity[ax][f]));
  MESSAGE("1 vs 2 threads after 8 steps: max particle difference " << dp << " m, max velocity difference " << du
                                                                   << " m/s");
  CHECK(dp < 1e-12);
  CHECK(du < 1e-10);
}

TEST_SUITE("validation") {

TEST_CASE("validation: hydrostatic rest in a half-filled spherical container") {
  const auto start = std::chrono::steady_clock::now();
  const int n = 48;
  grid::MacGrid g;
  g.resolution = {n, n, n};
  g.dx = 1.0 / n;
  const Real R = 0.4, grav = 9.81, rho = 1000;
  const Vec3 centre(0.5, 0.5, 0.5);
  Liquid built = make_liquid(g, rho, Vec3(0, -grav, 0), levelset::sphere_solid(centre, R, true));
  add_liquid(built, [&](const Vec3& x) { return x.y() < centre.y(); }, Vec3::Zero(), 8, 1);
  initialize(built);
  sim::CutCellSimulator state = test::liquid_state(std::move(built), 1.0, 1.0 / 30);
  Liquid& l = *state.liquid;
  const Real v_exact = 2.0 / 3.0 * M_PI * R * R * R;
  const Real v0 = liquid_volume(l);
  Real worst_speed = 0;
  int iterations = 0;
  const int steps = test::simulate(state, 1.0, [&](Real, const linsolve::Report& r) {
    CHECK(r.converged);
    iterations = std::max(iterations, r.iterations);
    worst_speed = std::max(worst_speed, test::max_liquid_face_speed(l));
  });
  const Real speed_scale = std::sqrt(grav * R);
  const Real final_speed = test::max_liquid_face_speed(l);
  // Bottom pressure: the lowest active cell of the centre column, against rho g (depth of its centre).
  const int ic = n / 2;
  int jb = 0;
  while (jb < n && l.pressure(ic, jb, ic) == 0) ++jb;
  REQUIRE(jb < n);
  const Real yb = g.cell_center(ic, jb, ic).y();
  const Real p_expected = rho * grav * (centre.y() - yb);
  const Real p_bottom = l.pressure(ic, jb, ic);
  const Real v1 = liquid_volume(l);
  Real particle_max = 0, particle_sq = 0;
  for (Index p = 0; p < l.particles.cols(); ++p) {
    const Real sp = grid::interpolate_velocity(l.grid, l.velocity, l.particles.col(p)).norm();
    particle_max = std::max(particle_max, sp);
    particle_sq += sp * sp;
  }
  const Real particle_rms = std::sqrt(particle_sq / static_cast<Real>(l.particles.cols()));
  MESSAGE("particle speeds at 1 s: rms " << particle_rms << " m/s (" << 100 * particle_rms / speed_scale
                                         << " % of sqrt(g R)), max " << particle_max << " m/s");
  MESSAGE(steps << " steps, " << seconds_since(start) << " s wall, max PCG iterations " << iterations);
  MESSAGE("max |u| at 1 s = " << final_speed << " m/s = " << 100 * final_speed / speed_scale
                              << " % of sqrt(g R); worst over the run " << 100 * worst_speed / speed_scale
                              << " %; inside the liquid (both sides liquid) "
                              << 100 * test::max_liquid_face_speed(l, 2) / speed_scale << " %");
  MESSAGE("bottom pressure " << p_bottom << " Pa vs rho g h " << p_expected << " Pa ("
                             << 100 * (p_bottom / p_expected - 1) << " %)");
  MESSAGE("volume: exact " << v_exact << ", initial " << v0 << " (" << 100 * (v0 / v_exact - 1) << " %), at 1 s "
                           << v1 << " (" << 100 * (v1 / v_exact - 1) << " % of exact, "
                           << 100 * (v1 / v0 - 1) << " % drift)");
  // Reference: max |u| < 1 % of sqrt(g R). Measured 0.02 %. Without the seeding's
  // lattice colour match (fluid/particles.hpp) it was 2.1 %: the jitter's steps in
  // the surface between columns start gravity waves that do not die out.
  CHECK(final_speed < 0.01 * speed_scale);
  CHECK(std::abs(p_bottom / p_expected - 1) < 0.02);
  CHECK(std::abs(v1 / v_exact - 1) < 0.02);
}

}  // TEST_SUITE

namespace {

// Quasi-2-D grid: nx x ny cells in the x-y plane, `nz` cells thick.
grid::MacGrid slab(int nx, int ny, int nz, Real dx) {
  grid::MacGrid g;
  g.resolution = {nx, ny, nz};
  g.dx = dx;
  return g;
}

}  // namespace

TEST_SUITE("validation") {

TEST_CASE("validation: dam break against Martin & Moyce (1952)") {
  const auto start = std::chrono::steady_clock::now();
  const Real a = 0.2, grav = 9.81, dx = 0.0125;
  const grid::MacGrid g = slab(96, 40, 2, dx);  // 1.2 x 0.5 m
  Liquid built = make_liquid(g, 1000, Vec3(0, -grav, 0), {});
  add_liquid(built, [&](const Vec3& x) { return x.x() < a && x.y() < 2 * a; }, Vec3::Zero(), 8, 1);
  initialize(built);
  sim::CutCellSimulator state = test::liquid_state(std::move(built), 1.0, 1.0 / 60);
  Liquid& l = *state.liquid;
  const Real v0 = liquid_volume(l);
  const Real time_scale = std::sqrt(2 * grav / a);  // T = t sqrt(2 g / a)
  const std::vector<std::pair<Real, Real>> reference = {
      {0.83, 1.22}, {1.22, 1.47}, {2.00, 2.29}, {2.55, 3.00}, {3.35, 4.13}};
  std::vector<std::pair<Real, Real>> front;  // (T, Z)
  front.emplace_back(0, l.particles.row(0).maxCoeff() / a);
  Real worst_volume = 0;
  int max_iterations = 0;
  const int steps = test::simulate(state, 2.0, [&](Real t, const linsolve::Report& r) {
    CHECK(r.converged);
    max_iterations = std::max(max_iterations, r.iterations);
    front.emplace_back(t * time_scale, l.particles.row(0).maxCoeff() / a);
    worst_volume = std::max(worst_volume, std::abs(liquid_volume(l) / v0 - 1));
  });
  MESSAGE(steps << " steps, " << seconds_since(start) << " s wall, max PCG iterations " << max_iterations);
  MESSAGE("volume: initial " << v0 << " m^3 (column " << a * 2 * a * g.dx * g.resolution.z()
                             << "), worst drift over 2 s " << 100 * worst_volume << " %");
  // Reference: within 5 % over 2 s (the bulk's surface from the smoothed liquid
  // fraction, splash drops at their particles' volume).
  CHECK(worst_volume < 0.05);
  for (const auto& [T, Z_ref] : reference) {
    std::size_t i = 1;
    while (i < front.size() && front[i].first < T) ++i;
    REQUIRE(i < front.size());
    const auto& [T0, Z0] = front[i - 1];
    const auto& [T1, Z1] = front[i];
    const Real Z = Z0 + (Z1 - Z0) * (T - T0) / (T1 - T0);
    MESSAGE("T = " << T << ": Z = " << Z << " vs Martin & Moyce " << Z_ref << " ("
                   << 100 * (Z / Z_ref - 1) << " %)");
    CHECK(Z >= 0.95 * Z_ref);
    // The free-slip front runs ahead of the experiment (no friction); the largest
    // lead is at T = 1.22, +14.8 % at this resolution.
    CHECK(Z <= 1.15 * Z_ref);
  }
}

TEST_CASE("validation: the shipped dam break keeps its measured liquid volume within 0.5 % over 3 s") {
  // scenes/dam_break.json as shipped (48 x 32 x 16 cells, 36,864 particles), run
  // to 3 s. Without the particle density correction it lost 3.0 % by 1 s and
  // 2.4 % by 3 s (its particles packed). Measured by the particles' shares
  // (levelset/liquid_sdf.hpp), with the correction acting only deep in the
  // liquid: worst +0.92 % at 1.2 s, the plunging wave's particles one and two
  // cells under its surface spread 4 % apart; with the cells near the air
  // corrected against what they read as seeded (levelset/natural_fraction.hpp):
  // worst -0.23 % at 1.5 s, -0.14 % at 3 s. Corrected every 1/120 s of simulated
  // time instead of every substep (fluid/density_correction.hpp): worst
  // +0.39 % at 1.03 s, +0.01 % at 3 s.
  const auto start = std::chrono::steady_clock::now();
  sim::CutCellSimulator state = sim::CutCellSimulator(scene::load_scene((test::source_dir() / "scenes/dam_break.json").string()));
  Liquid& l = *state.liquid;
  const Real v0 = liquid_volume(l);
  Real worst = 0, worst_time = 0;
  int steps = 0;
  // Frame by frame as fsicut runs it, the volume measured where stats.jsonl has it.
  for (int frame = 1; frame <= 90; ++frame) {
    steps += sim::advance_frames_to(state, sim::frame_end(state, frame));
    const Real drift = liquid_volume(l) / v0 - 1;
    if (std::abs(drift) > std::abs(worst)) {
      worst = drift;
      worst_time = state.time;
    }
  }
  const Packing end = packing(l);
  MESSAGE(steps << " substeps, " << seconds_since(start) << " s wall; worst volume drift " << 100 * worst
                << " % at " << worst_time << " s; at 3 s " << 100 * (liquid_volume(l) / v0 - 1)
                << " %, deep density " << end.deep_density << ", packed cells " << end.packed_cells);
  CHECK(std::abs(worst) < 0.005);
}

TEST_CASE("validation: the torus splash has its measured volume back within 1 % once its water lies on the floor") {
  // scenes/torus_splash.json as shipped (1 s): the ball splits on the torus and
  // its water ends as a layer about a third of a cell deep on the floor. phi's
  // ramp read -9.9 % at 1 s (-22 % at 0.53 s) though no particle is lost; the
  // shares read the layer whole. While cells counted whole or not at all by
  // their centre (not their open part), the measure dipped by up to 2.4 %
  // (0.7 s) during the splash and read -0.59 % at 1 s; counting open parts it
  // moves by up to +2.0 % (0.23 s, the ball breaking on the torus) and reads
  // -0.33 % at 1 s.
  const auto start = std::chrono::steady_clock::now();
  sim::CutCellSimulator state =
      sim::CutCellSimulator(scene::load_scene((test::source_dir() / "scenes/torus_splash.json").string()));
  Liquid& l = *state.liquid;
  const Real v0 = liquid_volume(l);
  Real worst = 0, worst_time = 0;
  for (int frame = 1; frame <= 30; ++frame) {
    sim::advance_frames_to(state, sim::frame_end(state, frame));
    const Real drift = liquid_volume(l) / v0 - 1;
    if (std::abs(drift) > std::abs(worst)) {
      worst = drift;
      worst_time = state.time;
    }
  }
  const Real end = liquid_volume(l) / v0 - 1;
  MESSAGE(seconds_since(start) << " s wall; worst volume drift " << 100 * worst << " % at " << worst_time
                               << " s; at 1 s " << 100 * end << " %; particle volume against frame 0 "
                               << 100 * (packing(l).particle_volume / v0 - 1) << " %");
  CHECK(std::abs(end) < 0.01);
}

TEST_CASE("validation: free slip on a 30-degree ramp that is not grid-aligned") {
  const auto start = std::chrono::steady_clock::now();
  const Real grav = 9.81, angle = M_PI / 6;
  const grid::MacGrid g = slab(64, 48, 4, 1.0 / 64);  // 1 x 0.75 m
  // Ramp surface through (0, 0.553) descending to +x; solid below it.
  const Vec3 along(std::cos(angle), -std::sin(angle), 0);  // down the slope
  const Vec3 normal(std::sin(angle), std::cos(angle), 0);  // out of the solid
  const Vec3 p0(0, 0.553, 0);
  Liquid built = make_liquid(g, 1000, Vec3(0, -grav, 0), levelset::plane_solid(p0, normal));
  // A layer 0.06 m thick lying on the ramp, 0.3 m long, starting 0.15 m down the slope.
  add_liquid(built, [&](const Vec3& x) {
    const Real s = along.dot(x - p0), h = normal.dot(x - p0);
    return s > 0.15 && s < 0.45 && h > 0 && h < 0.06;
  }, Vec3::Zero(), 8, 1);
  initialize(built);
  sim::CutCellSimulator state = test::liquid_state(std::move(built), 1.0, 1.0 / 120);
  Liquid& l = *state.liquid;
  // Mean particle velocity along the slope, least-squares slope of v(t) = a t.
  Real stt = 0, svt = 0;
  const int steps = test::simulate(state, 0.25, [&](Real t, const linsolve::Report& r) {
    CHECK(r.converged);
    Real v = 0;
    for (Index p = 0; p < l.particles.cols(); ++p)
      v += along.dot(grid::interpolate_velocity(l.grid, l.velocity, l.particles.col(p)));
    v /= static_cast<Real>(l.particles.cols());
    stt += t * t;
    svt += v * t;
  });
  const Real accel = svt / stt, expected = grav * std::sin(angle);
  MESSAGE(steps << " steps, " << seconds_since(start) << " s wall");
  MESSAGE("acceleration along the ramp " << accel << " m/s^2 vs g sin 30 = " << expected << " ("
                                         << 100 * (accel / expected - 1) << " %)");
  CHECK(std::abs(accel / expected - 1) < 0.10);
}

TEST_CASE("validation: first sloshing mode period") {
  const auto start = std::chrono::steady_clock::now();
  const Real L = 1, h = 0.5, amp = 0.01, grav = 9.81;
  const int n = 64;
  const grid::MacGrid g = slab(n, 45, 2, L / n);  // 1 x 0.70 m
  Liquid built = make_liquid(g, 1000, Vec3(0, -grav, 0), {});
  add_liquid(built, [&](const Vec3& x) { return x.y() < h + amp * std::cos(M_PI * x.x() / L); }, Vec3::Zero(), 8, 1);
  initialize(built);
  sim::CutCellSimulator state = test::liquid_state(std::move(built), 1.0, 0.01);
  Liquid& l = *state.liquid;
  const Real k = M_PI / L;
  const Real period_ref = 2 * M_PI / std::sqrt(grav * k * std::tanh(k * h));
  // The first mode moves the centre of mass in x; its extrema are half a period apart.
  std::vector<std::pair<Real, Real>> xc;
  xc.emplace_back(0, particle_centroid(l).x());
  const int steps = test::simulate(state, 2.6, [&](Real t, const linsolve::Report& r) {
    CHECK(r.converged);
    xc.emplace_back(t, particle_centroid(l).x());
  });
  std::vector<Real> extrema;
  for (std::size_t i = 1; i + 1 < xc.size(); ++i) {
    const Real a = xc[i - 1].second, b = xc[i].second, c = xc[i + 1].second;
    if ((b > a && b >= c) || (b < a && b <= c)) {
      // Vertex of the parabola through the three samples.
      const Real t0 = xc[i - 1].first, t1 = xc[i].first, t2 = xc[i + 1].first;
      const Real d1 = (b - a) / (t1 - t0), d2 = (c - b) / (t2 - t1);
      const Real curv = (d2 - d1) / (0.5 * (t2 - t0));
      extrema.push_back(curv != 0 ? 0.5 * (t0 + t1) - d1 / curv : t1);
    }
  }
  MESSAGE(steps << " steps, " << seconds_since(start) << " s wall, " << extrema.size() << " extrema");
  REQUIRE(extrema.size() >= 3);
  // The initial state (t = 0) is an extremum too.
  extrema.insert(extrema.begin(), 0.0);
  const Real period = 2 * (extrema.back() - extrema.front()) / static_cast<Real>(extrema.size() - 1);
  std::string list;
  for (Real e : extrema) list += std::to_string(e) + " ";
  MESSAGE("extrema of the x centroid at t = " << list);
  MESSAGE("period " << period << " s vs 2 pi / sqrt(g k tanh(k h)) = " << period_ref << " s ("
                    << 100 * (period / period_ref - 1) << " %)");
  CHECK(std::abs(period / period_ref - 1) < 0.05);
}

}  // TEST_SUITE
