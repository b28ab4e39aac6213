// The liquid SDF from the particles on its own, the particle part of the
// distance-fields stage, timed closer than fsicut_bench_stages can on a busy
// machine (many repetitions, the best and the median kept):
//   fsicut_bench_liquid_sdf SCENE.json [SUBSTEPS] [REPS] [--set /pointer=value ...]
// Runs SUBSTEPS substeps of the scene first (default 2: the particles have moved
// off their seeding order), then REPS times (default 20) each of
// levelset::liquid_phi_from_particles (every substep) and
// levelset::liquid_volume_from_particles (the per-frame statistics). Threads
// follow OMP_NUM_THREADS (default: all cores). Prints one JSON object, seconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/memory.hpp"
#include "lib/core/parallel.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class F>
void report(const char* name, int reps, const F& f, const char* sep) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double start = now();
    f();
    t.push_back(now() - start);
  }
  std::printf("%s\"%s\": {\"min\": %.6g, \"median\": %.6g}", sep, name, *std::min_element(t.begin(), t.end()),
              median(t));
}

}  // namespace

int main(int argc, char** argv) {
  fsicut::use_passive_wait_policy(argv);
  fsicut::retain_freed_memory();
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENE.json [SUBSTEPS] [REPS] [--set /pointer=value ...]\n", argv[0]);
    return 64;
  }
  std::vector<int> counts;
  std::vector<fsicut::scene::Override> overrides;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) overrides.push_back(fsicut::scene::parse_override(argv[++i]));
    else counts.push_back(std::atoi(argv[i]));
  }
  const int substeps = counts.size() > 0 ? counts[0] : 2;
  const int reps = std::max(1, counts.size() > 1 ? counts[1] : 20);
  try {
    fsicut::set_threads(0);
    fsicut::sim::CutCellSimulator state = fsicut::sim::CutCellSimulator(fsicut::scene::load_scene(argv[1], overrides));
    if (!state.liquid) throw fsicut::Error(fsicut::ExitCode::data, "the scene has no liquid");
    // The scene's own substeps, frame by frame, until SUBSTEPS have been taken.
    int taken = 0;
    fsicut::sim::AdvanceHooks hooks;
    hooks.stop = [&](const fsicut::sim::Simulator&) { return ++taken >= substeps; };
    for (bool going = substeps > 0; going;) {
      fsicut::sim::FrameStats tally;
      fsicut::StageTimes times;
      going = fsicut::sim::advance_frame(state, tally, times, hooks);
    }
    const fsicut::fluid::Liquid& l = state.liquid.value();
    fsicut::grid::Array3<fsicut::Real> phi;
    std::printf("{\"scene\": \"%s\", \"resolution\": %d, \"threads\": %d, \"particles\": %lld, ", argv[1],
                state.scene.grid.resolution.maxCoeff(), fsicut::threads(), static_cast<long long>(l.particles.cols()));
    report("liquid_phi", reps, [&] {
      fsicut::levelset::liquid_phi_from_particles(l.grid, l.particles, l.particle_volume, l.particle_radius, l.solid_phi,
                                                  phi, l.reach);
    }, "");
    report("liquid_volume", reps, [&] {
      volatile fsicut::Real v =
          fsicut::levelset::liquid_volume_from_particles(l.grid, l.particles, l.particle_volume, l.solid_phi, l.reach);
      (void)v;
    }, ", ");
    std::printf("}\n");
    return 0;
  } catch (const fsicut::Error& e) {
    std::fprintf(stderr, "fsicut_bench_liquid_sdf: %s\n", e.what());
    return static_cast<int>(e.code());
  }
}
