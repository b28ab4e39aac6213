// Times each stage of Algorithm 1 on a scene and prints one JSON object:
//   fsicut_bench_stages SCENE.json [STEPS] [--set /pointer=value ...]
// Runs STEPS substeps (default 20) from the scene's initial state, frame by
// frame through sim::advance_to (the substeps fsicut takes), after one
// warm-up substep, and reports per stage the median and the
// total seconds, plus the linear solves' iterations and unknowns, and the
// set-up (scene to initial state: meshing, seeding, distance fields). Threads
// follow OMP_NUM_THREADS (default: all cores).
// Scenes with liquid and solids also get "coupled_solve": each substep's
// coupled system solved again on its own in the SPD form (33) as CutCellSimulator::step
// solves it (the scene's coupling/preconditioner), from zero: medians of the
// assembly of (33) from the blocks (with the solid block's pattern kept from
// the substep before, as the stepping keeps it: "assembly"; worked out anew:
// "assembly_fresh"), the set-up of its preconditioner
// (coupling::spd_preconditioner: the pressure preconditioner and the solid
// factorizations), the whole PCG solve (all set-up included), its iterations,
// the seconds per iteration (the solve less the assembly and the set-up, over
// the iterations) and the bandwidth floor of one plain PCG iteration in bytes
// (the matrix of (33) once and six vectors). "kept_setup": how often the
// stepping's own solves kept their set-up across substeps (coupled_projection.hpp,
// SpdWorkspace; warm-up included). "peak_rss_mb": the process's peak
// resident memory.
// --dump-system DIR writes the last timed substep's system (33) for other
// solvers (Matrix Market, io/matrix_market.hpp): DIR/matrix.mtx (its lower
// triangle, both blocks scaled as solve_spd scales them), DIR/rhs.mtx, DIR/low_rank.mtx
// when reduced bodies add U U^T to the pressure block (the system is then
// matrix + [U; 0][U; 0]^T), and DIR/system.json (sizes, alpha, the scene's
// tolerance).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "lib/core/error.hpp"
#include "lib/core/memory.hpp"
#include "lib/core/parallel.hpp"
#include "lib/coupling/coupled_projection.hpp"
#include "lib/fluid/pressure_projection.hpp"
#include "lib/io/atomic.hpp"
#include "lib/io/matrix_market.hpp"
#include "lib/sim/from_scene.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/run.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct CoupledTimes {
  std::vector<double> assembly, assembly_fresh, preconditioner, solve, iterations, unknowns, per_iteration,
      floor_bytes;
  fsicut::coupling::SpdWorkspace workspace;  // keeps the solid block's pattern between substeps
};

// Peak resident memory of this process [MB] (Linux: ru_maxrss in kB).
double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Solves `sys` in the SPD form as CutCellSimulator::step does, timing the parts.
void time_coupled(const fsicut::coupling::CoupledSystem& sys, const fsicut::scene::Coupling& c, CoupledTimes& out) {
  const fsicut::coupling::CoupledSettings settings = fsicut::sim::coupled_settings(c);
  double t = now();
  { const fsicut::coupling::SpdSystem fresh = fsicut::coupling::spd_system(sys, settings); }
  out.assembly_fresh.push_back(now() - t);
  t = now();
  const fsicut::coupling::SpdSystem spd = fsicut::coupling::spd_system(sys, settings, out.workspace);
  out.assembly.push_back(now() - t);
  t = now();
  { const auto preconditioner = fsicut::coupling::spd_preconditioner(sys, spd, settings); }
  const double setup = now() - t;
  out.preconditioner.push_back(setup);
  t = now();
  const fsicut::coupling::CoupledSolution x = fsicut::coupling::solve_spd(sys, settings, {});
  const double solve = now() - t;
  out.solve.push_back(solve);
  out.iterations.push_back(x.report.iterations);
  out.unknowns.push_back(x.report.unknowns);
  const double fixed = out.assembly.back() + setup;
  if (x.report.iterations > 0) out.per_iteration.push_back((solve - fixed) / x.report.iterations);
  // The memory traffic one plain PCG iteration cannot avoid: the matrix of (33)
  // once (values, column indices, row starts) and six vectors.
  const double n = static_cast<double>(spd.matrix.rows());
  out.floor_bytes.push_back(static_cast<double>(spd.matrix.nonZeros()) * (sizeof(fsicut::Real) + sizeof(int)) +
                            (n + 1) * sizeof(int) + 6 * n * sizeof(fsicut::Real));
}

// The SPD system (33) of `sys` as solve_spd builds it, written under `folder`.
void dump_system(const std::filesystem::path& folder, const char* scene, const fsicut::coupling::CoupledSystem& sys,
                 const fsicut::scene::Coupling& c) {
  const fsicut::coupling::SpdSystem spd = fsicut::coupling::spd_system(sys, fsicut::sim::coupled_settings(c));
  fsicut::io::ensure_output_directory(folder);
  // (33) is symmetric by construction; should round-off ever break that, the
  // file says so (general) rather than storing half of a different matrix.
  const bool symmetric = spd.matrix.isApprox(fsicut::linsolve::SparseMatrix(spd.matrix.transpose()), 0);
  fsicut::io::write_matrix_market(folder / "matrix.mtx", spd.matrix,
                                  symmetric ? fsicut::io::MatrixSymmetry::symmetric : fsicut::io::MatrixSymmetry::general);
  fsicut::io::write_matrix_market(folder / "rhs.mtx", spd.rhs);
  if (spd.low_rank.cols() > 0)
    fsicut::io::write_matrix_market(folder / "low_rank.mtx", spd.low_rank, fsicut::io::MatrixSymmetry::general);
  char text[512];
  std::snprintf(text, sizeof text,
                "{\"scene\": \"%s\", \"unknowns\": %lld, \"pressure_rows\": %d, \"solid_dofs\": %d, "
                "\"entries\": %lld, \"symmetric\": %s, \"low_rank\": %lld, \"alpha\": %.17g, \"tolerance\": %.17g}\n",
                scene, static_cast<long long>(spd.matrix.rows()), sys.cells(), sys.dofs(),
                static_cast<long long>(spd.matrix.nonZeros()), symmetric ? "true" : "false",
                static_cast<long long>(spd.low_rank.cols()), spd.alpha,
                c.tolerance);
  fsicut::io::write_text_atomically(folder / "system.json", text);
}

}  // namespace

int main(int argc, char** argv) {
  fsicut::use_passive_wait_policy(argv);
  fsicut::retain_freed_memory();
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENE.json [STEPS] [--set /pointer=value ...] [--dump-system DIR]\n", argv[0]);
    return 64;
  }
  int steps = 20;
  std::string dump;
  std::vector<fsicut::scene::Override> overrides;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) overrides.push_back(fsicut::scene::parse_override(argv[++i]));
    else if (a == "--dump-system" && i + 1 < argc) dump = argv[++i];
    else steps = std::atoi(argv[i]);
  }
  try {
    fsicut::set_threads(0);
    const double setup_start = now();
    fsicut::sim::CutCellSimulator state = fsicut::sim::CutCellSimulator(fsicut::scene::load_scene(argv[1], overrides));
    const double setup = now() - setup_start;
    std::map<std::string, std::vector<double>> per_stage;
    std::vector<double> iterations, unknowns, totals;
    CoupledTimes coupled;
    std::optional<fsicut::coupling::CoupledSystem> system, last_system;
    // Frame by frame, as fsicut runs the scene; each substep's stage times are
    // the growth of `times` since the last one.
    fsicut::StageTimes times;
    std::map<std::string, double> before;
    int k = 0;
    fsicut::sim::AdvanceHooks hooks;
    hooks.observe = [&](const fsicut::coupling::CoupledSystem& sys) { system = sys; };
    hooks.after_substep = [&](const fsicut::sim::Simulator&, const fsicut::sim::StepReport& r) {
      const std::map<std::string, double> now_times = times.seconds();
      if (k++ > 0) {  // k = 0 is the warm-up: first-touch allocations, caches
        // After the step, so it does not disturb the stage timings.
        if (system) time_coupled(*system, state.scene.coupling, coupled);
        if (system && !dump.empty()) last_system = std::move(system);
        double total = 0;
        for (const auto& [stage, t] : now_times) {
          const double s = t - (before.count(stage) ? before.at(stage) : 0.0);
          per_stage[stage].push_back(s);
          total += s;
        }
        totals.push_back(total);
        iterations.push_back(r.worst_solve.iterations);
        unknowns.push_back(r.worst_solve.unknowns);
      }
      before = now_times;
      system.reset();
    };
    hooks.stop = [&](const fsicut::sim::Simulator&) { return k > steps; };
    for (bool going = true; going;) {
      fsicut::sim::FrameStats tally;
      going = fsicut::sim::advance_frame(state, tally, times, hooks);
    }
    std::printf("{\"scene\": \"%s\", \"resolution\": %d, \"preconditioner\": \"%s\", \"steps\": %d, "
                "\"threads\": %d, \"setup_seconds\": %.6g, \"seconds_per_step\": %.6g, \"stages\": {",
                argv[1], state.scene.grid.resolution.maxCoeff(),
                fsicut::scene::to_string(state.scene.coupling.preconditioner), steps, fsicut::threads(), setup,
                median(totals));
    const char* sep = "";
    for (const auto& [stage, v] : per_stage) {
      double sum = 0;
      for (double s : v) sum += s;
      std::printf("%s\"%s\": {\"median\": %.6g, \"total\": %.6g}", sep, stage.c_str(), median(v), sum);
      sep = ", ";
    }
    std::printf("}, \"solver\": {\"median_iterations\": %.6g, \"median_unknowns\": %.6g}", median(iterations),
                median(unknowns));
    if (!coupled.solve.empty())
      std::printf(", \"coupled_solve\": {\"systems\": %zu, \"assembly\": %.6g, \"assembly_fresh\": %.6g, "
                  "\"preconditioner\": %.6g, "
                  "\"solve\": %.6g, \"iterations\": %.6g, \"unknowns\": %.6g, \"seconds_per_iteration\": %.6g, "
                  "\"floor_bytes_per_iteration\": %.6g}",
                  coupled.solve.size(), median(coupled.assembly), median(coupled.assembly_fresh),
                  median(coupled.preconditioner),
                  median(coupled.solve), median(coupled.iterations), median(coupled.unknowns),
                  median(coupled.per_iteration), median(coupled.floor_bytes));
    const fsicut::coupling::SpdWorkspace::Counts& kept = state.spd_workspace.counts();
    std::printf(", \"kept_setup\": {\"solid_analyses_kept\": %d, \"solid_analyses_built\": %d, "
                "\"hierarchies_kept\": %d, \"hierarchies_built\": %d, \"solid_products_kept\": %d, "
                "\"solid_products_built\": %d}",
                kept.solid_analyses_kept, kept.solid_analyses_built, kept.hierarchies_kept, kept.hierarchies_built,
                kept.solid_products_kept, kept.solid_products_built);
    std::printf(", \"peak_rss_mb\": %.6g}\n", peak_rss_mb());
    if (!dump.empty()) {
      if (!last_system)
        throw fsicut::Error(fsicut::ExitCode::data, std::string(argv[1]) + ": --dump-system: no coupled system " +
                                                        "was solved (the scene needs liquid and solids, and STEPS >= 1)");
      dump_system(dump, argv[1], *last_system, state.scene.coupling);
    }
    return 0;
  } catch (const fsicut::Error& e) {
    std::fprintf(stderr, "fsicut_bench_stages: %s\n", e.what());
    return static_cast<int>(e.code());
  }
}
