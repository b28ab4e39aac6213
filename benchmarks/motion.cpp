// What liquid that comes and goes and a wall that moves cost (issue #55's
// target: at most 10 % of a substep), printed as one JSON object:
//   fsicut_bench_motion [SCENE.json] [STEPS] [--set /pointer=value ...]
// Without SCENE, the built-in scene: scenes/stirred_tank.json's tank and
// paddle (0.2 m wide, one cell thick, one turn a second) with a box source
// pouring in at 1 m/s and a drain in the floor, both on from the start.
//
// Runs STEPS substeps (default 24) through sim::advance_frame, as fsicut
// does, after one warm-up substep, and reports the median substep and its
// stages [ms]. Then, at the state it reached, each part on its own, REPEATS
// (10) times and the median:
//   - sources: carried_by_sources (on its own) and exchange_liquid's stage
//     ("sources", from the run), the whole of what sources, drains and open
//     sides add;
//   - moving: stage 4's solid fields with the obstacles placed at the next
//     REPEATS substep times (sim::update_solid_fields, which without motion
//     keeps what it computed once), the projection's wall velocity
//     (sim::update_wall_velocity) and stage 6's constraint with the
//     obstacle's velocity less without it: what a moving obstacle adds to
//     the stages (its surface's tests in the particle paths and the
//     particles' reach in stage 2 are the same as a static obstacle's);
//   - parts: what the solid fields spend their time in: the moving
//     obstacle's distance and fractions (sim::add_moving_obstacles) and the
//     thin-solid stages on the whole grid (cutcell::close_thin_solid_faces,
//     split_cells, neighbour_reach, whose particles' part particle_reach is).
// Times are the process's CPU time (a busy machine stretches wall-clock time
// more than the work), the substep's from the run; the sources' stage is
// wall-clock as stats.jsonl has it, its share over the wall-clock substep.
// Each share is a median over the median substep. Threads follow
// OMP_NUM_THREADS (default: all cores).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <time.h>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/moving.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/cutcell/solid_fields.hpp"

namespace {

constexpr int REPEATS = 10;

// The stirred tank with a source and a drain (see the top of this file).
constexpr const char* SCENE = R"({
  "grid": { "resolution": [30, 20, 30], "cell_size": 0.02 },
  "time": { "fps": 30, "frames": 30 },
  "fluid": {
    "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.6, 0.25, 0.6] } ],
    "sources": [ { "type": "box", "min": [0.06, 0.3, 0.06], "max": [0.12, 0.34, 0.12], "velocity": [0, -1, 0] } ],
    "drains": [ { "type": "box", "min": [0.48, 0, 0.48], "max": [0.54, 0.02, 0.54] } ]
  },
  "obstacles": [
    { "type": "box", "min": [0.2, 0.04, 0.29], "max": [0.4, 0.36, 0.31],
      "motion": { "keyframes": [ { "time": 0, "rotate": [0, 0, 0] }, { "time": 0.25, "rotate": [0, 90, 0] },
                                 { "time": 0.5, "rotate": [0, 180, 0] }, { "time": 0.75, "rotate": [0, 270, 0] },
                                 { "time": 1, "rotate": [0, 360, 0] } ] } }
  ],
  "output": { "checkpoint_every": 0 }
})";

// The process's CPU seconds, all threads together: what the parts below are
// measured in, as a busy machine (other processes) stretches wall-clock time
// but not the work done.
double cpu() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median seconds of REPEATS calls of f(k), k = 1 .. REPEATS.
template <class F>
double timed(F&& f) {
  std::vector<double> t;
  for (int k = 1; k <= REPEATS; ++k) {
    const double start = cpu();
    f(k);
    t.push_back(cpu() - start);
  }
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fsicut;
  use_passive_wait_policy(argv);
  std::string path;
  int steps = 24;
  std::vector<scene::Override> overrides;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) overrides.push_back(scene::parse_override(argv[++i]));
    else if (a.size() > 5 && a.substr(a.size() - 5) == ".json") path = a;
    else steps = std::atoi(argv[i]);
  }
  try {
    set_threads(0);
    const std::filesystem::path here = std::filesystem::current_path();
    scene::Scene description = path.empty() ? scene::parse_scene(SCENE, "(built-in)", here.string(), overrides)
                                             : scene::load_scene(path, overrides);
    sim::CutCellSimulator state(description);
    if (!state.liquid) throw Error(ExitCode::data, "the scene has no liquid");
    std::map<std::string, std::vector<double>> stages;
    std::vector<double> totals, cpus, dts;
    double cpu_start = 0;
    StageTimes times;
    std::map<std::string, double> before;
    int k = 0;
    Real last_time = state.time;
    sim::AdvanceHooks hooks;
    hooks.before_substep = [&](const sim::Simulator&, const sim::FrameStats&) { cpu_start = cpu(); };
    hooks.after_substep = [&](const sim::Simulator&, const sim::StepReport&) {
      const double used = cpu() - cpu_start;
      const std::map<std::string, double>& seconds = times.seconds();
      if (k++ > 0) {  // the first substep warms up (first-touch allocations, caches)
        double total = 0;
        for (const auto& [stage, t] : seconds) {
          const double s = t - (before.count(stage) ? before.at(stage) : 0.0);
          stages[stage].push_back(s);
          total += s;
        }
        totals.push_back(total);
        cpus.push_back(used);
        dts.push_back(state.time - last_time);
      }
      last_time = state.time;
      before = seconds;
    };
    hooks.stop = [&](const sim::Simulator&) { return k > steps; };
    for (bool going = true; going;) {
      sim::FrameStats tally;
      going = sim::advance_frame(state, tally, times, hooks);
    }
    const double substep = median(totals), substep_cpu = median(cpus), dt = median(dts);

    // The parts on their own, at the state reached.
    const double carried = timed([&](int) { (void)sim::carried_by_sources(state); });
    const double sources = median(stages[sim::STAGE_SOURCES]);
    const Real t0 = state.time;
    const double fields = timed([&](int r) {
      sim::place_moving(state, t0 + r * dt);
      state.motions.placed.clear();  // as if it had moved since stage 4 last ran
      sim::update_solid_fields(state);
    });
    const double wall = timed([&](int) { (void)sim::update_wall_velocity(state); });
    fluid::Liquid& l = *state.liquid;
    const double distance = timed([&](int) {
      l.solid_phi = l.static_phi;
      l.fractions = state.surfaces.static_fractions;
      sim::add_moving_obstacles(state);
    });
    grid::Array3<char> thin;
    cutcell::FaceFractions fractions = l.fractions;
    const double close = timed([&](int) {
      fractions = l.fractions;
      cutcell::close_thin_solid_faces(l.grid, l.solid_phi, state.surfaces.meshes, fractions, thin);
    });
    const double split = timed([&](int) {
      cutcell::FaceFractions f = fractions;
      (void)cutcell::split_cells(l.grid, l.solid_phi, state.surfaces.meshes, thin, f);
    });
    const double reach = timed(
        [&](int) { (void)cutcell::neighbour_reach(l.grid, l.solid_phi, state.surfaces.meshes, thin, l.particles); });
    const double particles = timed(
        [&](int) { (void)cutcell::particle_reach(l.grid, l.solid_phi, state.surfaces.meshes, l.reach, l.particles); });
    // Stage 6 with the obstacle's velocity on the constrained faces, less
    // without it (last: it extrapolates the velocities again).
    const double constrained = timed([&](int) { fluid::extrapolate_and_constrain(l, sim::solid_velocity(state)); });
    const double still = timed([&](int) { fluid::extrapolate_and_constrain(l, {}); });
    const double velocity = std::max(0.0, constrained - still);

    const double ms = 1e3, moving = fields + wall + velocity;
    const double share_sources = sources / substep + carried / substep_cpu, share_moving = moving / substep_cpu;
    std::printf("{\"scene\": \"%s\", \"threads\": %d, \"steps\": %d, \"dt\": %.6g, \"particles\": %lld, "
                "\"substep_ms\": %.4g, \"substep_cpu_ms\": %.4g, \"stages_ms\": {",
                path.empty() ? "built-in" : path.c_str(), threads(), steps, dt,
                static_cast<long long>(l.particles.cols()), ms * substep, ms * substep_cpu);
    const char* sep = "";
    for (const auto& [stage, v] : stages) {
      std::printf("%s\"%s\": %.4g", sep, stage.c_str(), ms * median(v));
      sep = ", ";
    }
    std::printf("}, \"sources_ms\": %.4g, \"carried_cpu_ms\": %.4g, \"moving_cpu_ms\": %.4g, "
                "\"moving_parts_cpu_ms\": {\"solid_fields\": %.4g, \"wall_velocity\": %.4g, \"solid_velocity\": %.4g, "
                "\"distance\": %.4g, "
                "\"close_thin_solid_faces\": %.4g, \"split_cells\": %.4g, \"neighbour_reach\": %.4g, "
                "\"particle_reach\": %.4g}, \"share\": {\"sources\": %.4g, \"moving\": %.4g, \"both\": %.4g}}\n",
                ms * sources, ms * carried, ms * moving, ms * fields, ms * wall, ms * velocity, ms * distance, ms * close, ms * split,
                ms * reach, ms * particles, share_sources, share_moving, share_sources + share_moving);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "fsicut_bench_motion: %s\n", e.what());
    return static_cast<int>(e.code());
  }
}
