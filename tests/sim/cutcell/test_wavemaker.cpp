// A piston wavemaker in a flume (obstacles/*/motion `sine`), driven through
// fsicut's stepping path (sim::advance_frames_to) and read by the scene's own
// gauge probes (sim::gauge_height): the wave it makes has the height linear
// wavemaker theory gives, and the beach at the far end (meshes/flume_beach.obj)
// sends little of it back.
//
// Linear piston wavemaker theory (Biesel; Dean & Dalrymple, "Water Wave
// Mechanics for Engineers and Scientists", sec. 6.3): a piston of stroke S
// (peak to peak) in water of depth h makes far from it (beyond 2-3 depths, where
// the evanescent modes have died out) a progressive wave of height
//   H / S = 2 (cosh 2kh - 1) / (sinh 2kh + 2kh),
// k the wavenumber of the dispersion relation omega^2 = g k tanh(kh).
//
// The reflection: the first harmonic of every gauge of a row spanning half a
// wavelength, fitted by least squares to an incident and a reflected wave
// a_i e^{-ikx} + a_r e^{ikx} (Mansard & Funke 1980); K_r = |a_r| / |a_i|.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/probes.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

using Complex = std::complex<Real>;

constexpr Real GRAVITY = 9.81;

// The wavenumber [1/m] of period T [s] in depth h [m]: omega^2 = g k tanh(kh),
// by fixed-point iteration from the deep-water value (a contraction for kh > 0.5).
Real wavenumber(Real T, Real h) {
  const Real omega = 2 * M_PI / T;
  Real k = omega * omega / GRAVITY;
  for (int i = 0; i < 200; ++i) k = omega * omega / (GRAVITY * std::tanh(k * h));
  return k;
}

// Biesel's height-to-stroke ratio of a piston wavemaker.
Real piston_ratio(Real kh) { return 2 * (std::cosh(2 * kh) - 1) / (std::sinh(2 * kh) + 2 * kh); }

struct Series {
  std::vector<Real> t;               // [s], one sample per substep
  std::vector<std::vector<Real>> y;  // per gauge, the surface height [m]
};

// The mean over the whole periods in [t0, t1] of each period's highest minus
// lowest reading of gauge g [m].
Real mean_height(const Series& s, std::size_t g, Real t0, Real t1, Real T) {
  Real sum = 0;
  int periods = 0;
  for (Real a = t0; a + T <= t1 + 1e-9; a += T, ++periods) {
    Real lo = INFINITY, hi = -INFINITY;
    for (std::size_t i = 0; i < s.t.size(); ++i)
      if (s.t[i] >= a && s.t[i] < a + T) {
        lo = std::min(lo, s.y[g][i]);
        hi = std::max(hi, s.y[g][i]);
      }
    sum += hi - lo;
  }
  return sum / periods;
}

// The complex amplitude [m] of gauge g's first harmonic (frequency 1/T) over
// [t0, t1] (whole periods), its mean removed: trapezoids on the substep samples.
Complex first_harmonic(const Series& s, std::size_t g, Real t0, Real t1, Real T) {
  std::vector<std::size_t> in;
  Real mean = 0;
  for (std::size_t i = 0; i < s.t.size(); ++i)
    if (s.t[i] >= t0 && s.t[i] <= t1) {
      in.push_back(i);
      mean += s.y[g][i];
    }
  mean /= static_cast<Real>(in.size());
  Complex sum = 0;
  const auto f = [&](std::size_t i) { return (s.y[g][i] - mean) * std::exp(Complex(0, -2 * M_PI * s.t[i] / T)); };
  for (std::size_t j = 1; j < in.size(); ++j) sum += 0.5 * (f(in[j - 1]) + f(in[j])) * (s.t[in[j]] - s.t[in[j - 1]]);
  return 2.0 * sum / (s.t[in.back()] - s.t[in.front()]);
}

struct Split {
  Real incident = 0;   // height of the incident wave, 2 |a_i| [m]
  Real reflected = 0;  // height of the reflected wave, 2 |a_r| [m]
  Real misfit = 0;     // |Z - fit| / |Z| over the row
};

// The least-squares split of the row's first harmonics Z_j at x_j into
// a_i e^{-ikx} + a_r e^{ikx} (2 x 2 normal equations).
Split split_waves(const std::vector<Complex>& z, const std::vector<Real>& x, Real k) {
  Complex m00 = 0, m01 = 0, m11 = 0, b0 = 0, b1 = 0;
  for (std::size_t j = 0; j < z.size(); ++j) {
    const Complex e0 = std::exp(Complex(0, -k * x[j])), e1 = std::exp(Complex(0, k * x[j]));
    m00 += std::conj(e0) * e0;
    m01 += std::conj(e0) * e1;
    m11 += std::conj(e1) * e1;
    b0 += std::conj(e0) * z[j];
    b1 += std::conj(e1) * z[j];
  }
  const Complex m10 = std::conj(m01), det = m00 * m11 - m01 * m10;
  const Complex ai = (b0 * m11 - m01 * b1) / det, ar = (m00 * b1 - m10 * b0) / det;
  Real misfit = 0, norm = 0;
  for (std::size_t j = 0; j < z.size(); ++j) {
    misfit += std::norm(z[j] - ai * std::exp(Complex(0, -k * x[j])) - ar * std::exp(Complex(0, k * x[j])));
    norm += std::norm(z[j]);
  }
  return {2 * std::abs(ai), 2 * std::abs(ar), std::sqrt(misfit / norm)};
}

}  // namespace

// About 300 substeps of a 250 x 25 x 4 grid: a minute or two on 2 cores.
TEST_SUITE("validation") {

TEST_CASE("a piston wavemaker makes Biesel's wave height and the flume's beach reflects under 20 % of it") {
  // The flume: still water h = 0.3 m deep, 5 m long (cells of 2 cm), 4 cells
  // across; the piston's face at x = 0.1 m, its back dry; the beach of
  // meshes/flume_beach.obj (1:10 from x = 1.4 m). A wave of T = 1 s (kh = 1.37,
  // L = 1.37 m) and height 3 cm (steepness H / L = 0.022, where linear theory holds).
  const Real h = 0.3, T = 1.0, H_target = 0.03;
  const Real k = wavenumber(T, h), kh = k * h;
  const Real stroke = H_target / piston_ratio(kh);
  // The gauge row: 8 gauges 0.1 m apart from x = 0.55 m (1.5 depths from the
  // piston) to 1.25 m, half a wavelength; the one at 0.85 m is 2.5 depths out.
  std::vector<Real> row;
  std::string probes;
  for (int j = 0; j < 8; ++j) {
    row.push_back(0.55 + 0.1 * j);
    probes += std::string(j ? ", " : "") + R"({ "name": "g)" + std::to_string(j) + R"(", "type": "gauge", "position": [)" +
              std::to_string(row.back()) + ", 0.04] }";
  }
  const std::string beach = (test::source_dir() / "meshes" / "flume_beach.obj").string();
  sim::CutCellSimulator state(scene::parse_scene(
      R"({ "grid": { "resolution": [250, 25, 4], "cell_size": 0.02 },
    "time": { "fps": 10, "frames": 110 },
    "fluid": { "regions": [ { "type": "box", "min": [0.1, 0, 0], "max": [5, 0.3, 0.08] } ] },
    "obstacles": [ { "type": "box", "min": [0.06, -0.05, -0.05], "max": [0.1, 0.55, 0.13],
                     "motion": { "sine": { "amplitude": [)" +
          std::to_string(stroke / 2) + R"(, 0, 0], "period": 1 } } },
                   { "type": "obj", "path": ")" + beach + R"(" } ],
    "probes": [ )" + probes + " ] }",
      "flume.json", "/tmp"));
  REQUIRE(state.scene.probes.size() == row.size());
  Series s;
  s.y.resize(row.size());
  sim::AdvanceHooks hooks;
  hooks.after_substep = [&](const sim::Simulator& sim, const sim::StepReport&) {
    const auto& cut = static_cast<const sim::CutCellSimulator&>(sim);
    s.t.push_back(sim.time);
    for (std::size_t g = 0; g < row.size(); ++g) s.y[g].push_back(sim::gauge_height(cut, cut.scene.probes[g]));
  };
  // The wave front (group velocity 0.93 m/s) passes the row by 2 s; what the
  // beach sends back reaches it after about 7 s (slower over the beach).
  sim::advance_frames_to(state, 11.0, hooks);

  const Real H_theory = stroke * piston_ratio(kh);
  const Real H_gauge = mean_height(s, 3, 3, 6, T);
  std::vector<Complex> before, after;
  for (std::size_t g = 0; g < row.size(); ++g) {
    before.push_back(first_harmonic(s, g, 3, 6, T));
    after.push_back(first_harmonic(s, g, 7, 11, T));
  }
  const Split incident = split_waves(before, row, k), reflected = split_waves(after, row, k);
  MESSAGE("kh " << kh << ", stroke " << stroke << " m: Biesel H " << H_theory << " m; gauge at 2.5 depths (3-6 s) "
                << H_gauge << " m (" << 100 * (H_gauge / H_theory - 1) << " %); row split 3-6 s: incident "
                << incident.incident << " m, reflected " << incident.reflected << " m (misfit " << incident.misfit
                << "); 7-11 s: incident " << reflected.incident << " m, reflected " << reflected.reflected
                << " m, K_r " << reflected.reflected / reflected.incident << " (misfit " << reflected.misfit << ")");
  CHECK(std::abs(H_gauge / H_theory - 1) < 0.15);
  CHECK(std::abs(incident.incident / H_theory - 1) < 0.15);
  // The row sees a progressive wave before the reflection arrives ...
  CHECK(incident.reflected < 0.1 * incident.incident);
  // ... and the beach returns under 20 % of what reaches it.
  CHECK(reflected.reflected < 0.2 * reflected.incident);
}

}  // TEST_SUITE("validation")
