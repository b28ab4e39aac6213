// The three coupling families on the same systems: monolithic spd, the
// under-relaxed partitioned iteration and xpm (coupling/partitioned.hpp,
// Akbay et al. 2018). Prints one JSON object.
//
//   fsicut_bench_partitioned SCENE FRAMES [--relaxations 1,0.5,...] [--set /pointer=value ...]
//
// Runs FRAMES frames of the scene with its own scheme (sim::advance_frames_to,
// as fsicut; spd by default, so every method below sees the systems of the same
// trajectory) and, on every substep's coupled system with both cells and solid
// dofs, solves it again with
//  - spd (solve_spd from a zero guess): seconds and PCG iterations;
//  - partitioned at each relaxation omega, and xpm: iterations, converged,
//    seconds, and the interface's share of them,
// all from the solids' velocity before the substep, to the scene's
// coupling/partitioned tolerance (cells per substep, converted with the
// substep's dt) and max_iterations. With coupling/partitioned/impulses
// "conservative" in the scene, the partitioned methods run twice, with J^T p
// ("impulses": "pressure") and with G p ("conservative"). Also the weak amplification's spectral
// radius (coupling/amplification.hpp) of each system: plain iteration
// (omega = 1) converges iff it is below 1, omega iff omega (1 + rho) < 2.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/memory.hpp"
#include "lib/coupling/amplification.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/couple.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/from_scene.hpp"

namespace {

using fsicut::Real;
using fsicut::coupling::PartitionedSettings;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Method {
  std::string name;  // "spd", "xpm", "partitioned"
  Real relaxation = 1;
  bool conservative = false;  // coupling/partitioned/impulses "conservative" (G p) instead of J^T p
  int systems = 0, converged = 0;
  long iterations = 0;  // summed over converged systems
  double seconds = 0, interface_seconds = 0;
};

std::vector<Real> parse_list(const std::string& s) {
  std::vector<Real> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::atof(item.c_str()));
  return out;
}

int usage(const char* self) {
  std::fprintf(stderr, "usage: %s SCENE.json FRAMES [--relaxations 1,0.5,0.2] [--set /pointer=value ...]\n", self);
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  fsicut::retain_freed_memory();
  if (argc < 3) return usage(argv[0]);
  std::vector<fsicut::scene::Override> overrides;
  std::vector<Real> relaxations = {1, 0.5, 0.2, 0.1, 0.05};
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) overrides.push_back(fsicut::scene::parse_override(argv[++i]));
    else if (a == "--relaxations" && i + 1 < argc) relaxations = parse_list(argv[++i]);
    else return usage(argv[0]);
  }
  try {
    fsicut::sim::CutCellSimulator state = fsicut::sim::CutCellSimulator(fsicut::scene::load_scene(argv[1], overrides));
    const int frames = std::atoi(argv[2]);
    const fsicut::scene::Coupling& sc = state.scene.coupling;
    const fsicut::coupling::CoupledSettings cs = fsicut::sim::coupled_settings(sc);

    std::vector<Method> methods;
    methods.push_back({"spd"});
    for (const Real w : relaxations) methods.push_back({"partitioned", w});
    methods.push_back({"xpm"});
    if (sc.partitioned.impulses == fsicut::scene::Partitioned::Impulses::conservative) {
      for (const Real w : relaxations) methods.push_back({"partitioned", w, true});
      methods.push_back({"xpm", 1, true});
    }
    std::vector<double> radii;

    // The substep's system and start velocity, kept until its dt is known.
    std::optional<fsicut::coupling::CoupledSystem> pending;
    fsicut::coupling::CoupledSolution start;
    Real before = state.time;
    fsicut::sim::AdvanceHooks hooks;
    hooks.observe = [&](const fsicut::coupling::CoupledSystem& sys) {
      if (sys.cells() == 0 || sys.dofs() == 0) return;
      pending = sys;
      start.velocity = fsicut::sim::free_velocities(state);
    };
    hooks.after_substep = [&](const fsicut::sim::Simulator& simulator, const fsicut::sim::StepReport&) {
      const auto& s = static_cast<const fsicut::sim::CutCellSimulator&>(simulator);
      const Real dt = s.time - before;
      before = s.time;
      if (!pending) return;
      fsicut::coupling::CoupledSystem with_pressure = *pending;
      with_pressure.impulse = {};
      radii.push_back(fsicut::coupling::weak_amplification(with_pressure).spectral_radius);
      for (Method& m : methods) {
        ++m.systems;
        const double t0 = now();
        if (m.name == "spd") {
          const fsicut::coupling::CoupledSolution x = fsicut::coupling::solve_spd(with_pressure, cs, {});
          m.seconds += now() - t0;
          if (x.report.converged) {
            ++m.converged;
            m.iterations += x.report.iterations;
          }
          continue;
        }
        PartitionedSettings ps;
        ps.method = m.name == "xpm" ? PartitionedSettings::Method::xpm : PartitionedSettings::Method::relaxed;
        ps.relaxation = m.relaxation;
        ps.tolerance = sc.partitioned.tolerance * s.scene.grid.cell_size / dt;
        ps.max_iterations = sc.partitioned.max_iterations;
        const fsicut::coupling::PartitionedSolution x =
            fsicut::coupling::solve_partitioned(m.conservative ? *pending : with_pressure, cs, ps, start);
        m.seconds += now() - t0;
        m.interface_seconds += x.partitioned.interface_seconds;
        if (x.partitioned.converged) {
          ++m.converged;
          m.iterations += x.partitioned.iterations;
        }
      }
      pending.reset();
    };
    fsicut::sim::advance_frames_to(state, frames / state.scene.time.fps, hooks);

    Real max_radius = 0, mean_radius = 0;
    for (const double r : radii) {
      max_radius = std::max(max_radius, r);
      mean_radius += r / radii.size();
    }
    std::printf("{\"scene\": \"%s\", \"systems\": %zu, \"max_radius\": %.6g, \"mean_radius\": %.6g, \"methods\": [",
                argv[1], radii.size(), max_radius, mean_radius);
    for (std::size_t k = 0; k < methods.size(); ++k) {
      const Method& m = methods[k];
      std::printf("%s{\"method\": \"%s\", \"impulses\": \"%s\", \"relaxation\": %.6g, \"systems\": %d, \"converged\": %d, "
                  "\"mean_iterations\": %.6g, \"seconds_per_system\": %.6g, \"interface_share\": %.6g}",
                  k ? ", " : "", m.name.c_str(), m.conservative ? "conservative" : "pressure", m.relaxation, m.systems, m.converged,
                  m.converged ? double(m.iterations) / m.converged : 0.0, m.systems ? m.seconds / m.systems : 0.0,
                  m.seconds > 0 ? m.interface_seconds / m.seconds : 0.0);
    }
    std::printf("]}\n");
    return 0;
  } catch (const fsicut::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
