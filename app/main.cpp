// fsicut: two-way coupled liquids and deformable solids from a scene file.
//
//   fsicut SCENE.json [-o DIR] [-j N] [--frames N] [--set /pointer=value ...]
//                     [--validate] [--resume [--force]] [--checkpoint-every N]
//                     [-q|-v] [--version]
//
// main() reads like the run itself: options -> scene -> simulator ->
// (checkpoint) -> frames -> exit code. Every fsicut::Error maps to the exit
// code of docs/reliability.md "Exit codes". SIGINT, SIGTERM and SIGUSR1 stop the run
// within seconds with a checkpoint and exit 75 (sim/run.hpp).
#include <CLI/CLI.hpp>
#include <signal.h>
#include <unistd.h>

#include <tbb/global_control.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "app/progress.hpp"
#include "lib/core/cancel.hpp"
#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/core/memory.hpp"
#include "lib/core/parallel.hpp"
#include "fsicut/core/version.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/build.hpp"
#include "lib/sim/cost.hpp"
#include "lib/sim/resources.hpp"
#include "lib/sim/run.hpp"
#include "lib/sim/snapshot.hpp"


namespace {

// More threads than this is a typo: OpenMP and TBB would try to start them all.
constexpr int MAX_THREADS = 1024;

// "8G", "512M", "1.5GB", "100k" or plain bytes -> bytes (powers of 1024 for
// the suffixes, as `ulimit` and Slurm's --mem count); nothing when malformed.
std::optional<double> parse_size(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(value > 0) || !std::isfinite(value)) return std::nullopt;
  std::string suffix(end);
  if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.pop_back();
  constexpr double KIB = 1024;
  if (suffix.empty()) return value;
  if (suffix == "k" || suffix == "K") return value * KIB;
  if (suffix == "M" || suffix == "m") return value * KIB * KIB;
  if (suffix == "G" || suffix == "g") return value * KIB * KIB * KIB;
  if (suffix == "T" || suffix == "t") return value * KIB * KIB * KIB * KIB;
  return std::nullopt;
}

struct Options {
  std::string scene;
  std::string output;
  int threads = 0;
  int frames = -1;
  std::vector<std::string> set;
  bool validate = false;
  bool resume = false;
  bool force = false;
  int checkpoint_every = -1;
  std::string max_memory;
  bool strict = false;
  bool quiet = false;
  bool verbose = false;
};

void define_options(CLI::App& app, Options& o) {
  app.add_option("scene", o.scene, "Scene file (JSON)")->required();
  app.add_option("-o,--output", o.output, "Output folder (overrides output.directory)");
  app.add_option("-j,--threads", o.threads, "Threads; 0 = OMP_NUM_THREADS or all cores")
      ->check(CLI::Range(0, MAX_THREADS));
  app.add_option("--frames", o.frames, "Frames to simulate (overrides time.frames)")->check(CLI::NonNegativeNumber);
  // Its form is the command line's (exit 64); what it sets is the scene's (65).
  app.add_option("--set", o.set, "Override a scene value: --set /json/pointer=value (repeatable)")
      ->allow_extra_args(false)
      ->check([](const std::string& text) {
        const std::size_t eq = text.find('=');
        return !text.empty() && text[0] == '/' && eq != std::string::npos && eq > 1
                   ? std::string()
                   : "expected /json/pointer=value, e.g. --set /solids/0/density=800";
      });
  app.add_flag("--validate", o.validate, "Parse the scene, build the meshes, print a summary; write nothing");
  app.add_flag("--resume", o.resume,
               "Continue from the newest valid checkpoint in the output folder (none: start at frame 0)");
  app.add_flag("--force", o.force, "With --resume: continue even though the scene changed since the checkpoint")
      ->needs("--resume");
  app.add_option("--checkpoint-every", o.checkpoint_every,
                 "Checkpoint every N frames (overrides output.checkpoint_every); 0 = never")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-memory", o.max_memory,
                 "Refuse scenes estimated to need more memory than this (e.g. 8G, 512M; default: the machine's or "
                 "the control group's memory)")
      ->check([](const std::string& text) {
        return parse_size(text) ? std::string() : "expected a size such as 8G, 512M or 1000000 (bytes)";
      });
  app.add_flag("--strict", o.strict,
               "Stop with exit 70 when a solid has inverted tetrahedra (default: a warning; scene key /strict)");
  auto* quiet = app.add_flag("-q,--quiet", o.quiet, "Errors only");
  app.add_flag("-v,--verbose", o.verbose, "More detail")->excludes(quiet);
  app.set_version_flag("--version", std::string("fsicut ") + fsicut::VERSION + "\n" + fsicut::LIBRARY_VERSIONS);
}

fsicut::scene::Scene load(const Options& o) {
  std::vector<fsicut::scene::Override> overrides;
  for (const std::string& s : o.set) overrides.push_back(fsicut::scene::parse_override(s));
  fsicut::scene::Scene scene = fsicut::scene::load_scene(o.scene, overrides);
  if (!o.output.empty()) scene.output.directory = o.output;
  if (o.frames >= 0) scene.time.frames = o.frames;
  if (o.checkpoint_every >= 0) scene.output.checkpoint_every = o.checkpoint_every;
  return scene;
}

// The signal that asked the run to stop, 0 while none did. Written only by
// the handler, read by the frame loop after every substep.
volatile std::sig_atomic_t stop_signal = 0;

// Non-zero while the scene is loaded, meshed and seeded. Nothing is written
// then and there is no state worth a checkpoint, so a stop signal ends the
// process at once instead of waiting (for ever, with a stuck TetGen) for the
// frame loop to look at stop_signal. TetGen's child dies with us
// (PR_SET_PDEATHSIG, lib/mesh/tetgen.hpp).
volatile std::sig_atomic_t in_setup = 1;

// Only async-signal-safe calls here: write(2) and _exit(2).
extern "C" void request_stop(int signal) {
  if (in_setup) {
    const char* message = signal == SIGINT    ? "fsicut: interrupted by SIGINT during set-up; nothing to checkpoint yet\n"
                          : signal == SIGTERM ? "fsicut: interrupted by SIGTERM during set-up; nothing to checkpoint yet\n"
                                              : "fsicut: interrupted by SIGUSR1 during set-up; nothing to checkpoint yet\n";
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message, std::strlen(message));
    ::_exit(static_cast<int>(fsicut::ExitCode::temp_fail));
  }
  stop_signal = signal;
}

// SIGINT, SIGTERM (what Slurm, systemd and `kill` send) and SIGUSR1 (what
// `sbatch --signal` sends before the time limit) stop the run cleanly.
// SA_RESTART: a signal arriving during a system call (a file write) must not
// make that call fail. SIGINT resets to the default after the first one, so
// a second Ctrl-C quits at once if the checkpoint takes too long.
void install_stop_handlers() {
  for (const int signal : {SIGINT, SIGTERM, SIGUSR1}) {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | (signal == SIGINT ? SA_RESETHAND : 0);
    sigaction(signal, &action, nullptr);
  }
}

// Restores the newest checkpoint of the output folder into `sim`; says so,
// or that there is none and the run starts at frame 0.
bool resume(fsicut::sim::Simulator& sim, fsicut::sim::RunProgress& progress, bool force) {
  const std::optional<fsicut::checkpoint::Resumed> r =
      fsicut::sim::resume_checkpoint(sim.scene.output.directory, sim, progress, force);
  char line[512];
  if (!r) {
    std::snprintf(line, sizeof line, "no usable checkpoint in %s; starting at frame 0",
                  sim.scene.output.directory.c_str());
    fsicut::log::info(line);
    return false;
  }
  std::snprintf(line, sizeof line, "resuming from %s: frame %d done, t = %.6g s%s", r->file.c_str(), r->info.frame,
                r->info.time, r->info.mid_frame ? " (inside the next frame)" : "");
  fsicut::log::info(line);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Idle OpenMP threads sleep instead of spinning unless the user says
  // otherwise: on a shared workstation or farm node a spinning team steals
  // the cores other jobs need (core/parallel.hpp).
  fsicut::use_passive_wait_policy(argv);
  fsicut::retain_freed_memory();
  CLI::App app{"fsicut: two-way coupled free-surface liquids and deformable solids"};
  Options options;
  define_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(fsicut::ExitCode::usage);
  }

  using fsicut::log::Level;
  fsicut::log::set_level(options.quiet ? Level::quiet : options.verbose ? Level::verbose : Level::info);
  try {
    if (!options.validate) install_stop_handlers();
    fsicut::set_threads(options.threads);
    // OpenVDB runs on TBB, which otherwise takes every core whatever -j says.
    const tbb::global_control tbb_threads(tbb::global_control::max_allowed_parallelism,
                                          static_cast<std::size_t>(fsicut::threads()));
    const fsicut::scene::Scene scene = load(options);
    // Before anything scene-sized is allocated: a refused scene costs nothing.
    const fsicut::sim::ResourceEstimate estimate = fsicut::sim::estimate_resources(scene);
    const double memory_limit = options.max_memory.empty() ? fsicut::sim::available_memory()
                                                           : *parse_size(options.max_memory);
    const std::string limit_source =
        options.max_memory.empty() ? "the memory available (machine or control group)" : "--max-memory";
    fsicut::sim::check_resources(scene, estimate, memory_limit, limit_source);
    const std::unique_ptr<fsicut::sim::Simulator> sim = fsicut::sim::build_simulator(scene);
    // Time per substep: a slow scene is said before it runs (a stop waits for
    // at most one solver iteration, but every frame takes its substeps).
    const fsicut::sim::SubstepCost cost = sim->estimate_substep();
    for (const std::string& w : fsicut::sim::slow_substep_warnings(cost)) fsicut::log::warn(w);
    if (options.validate) {
      std::fputs(sim->summary().c_str(), stdout);
      std::fputs(fsicut::sim::describe(estimate, memory_limit, limit_source).c_str(), stdout);
      std::fputs(fsicut::sim::describe(cost).c_str(), stdout);
      return 0;
    }
    fsicut::log::info(fsicut::sim::describe(cost).substr(0, fsicut::sim::describe(cost).find('\n')));
    fsicut::sim::RunProgress restored;
    fsicut::sim::RunControl control;
    control.stop = &stop_signal;
    control.strict = options.strict || scene.strict;
    if (options.resume && resume(*sim, restored, options.force)) {
      control.resumed = &restored;
      control.rewrite_existing = options.force;
    }
    fsicut::app::Progress progress(sim->frame, scene.time.frames, !options.quiet);
    in_setup = 0;
    fsicut::sim::run(*sim, progress.callback(), control);
    progress.finish(scene.output.directory);
    return 0;
  } catch (const fsicut::Error& e) {
    // Interrupted is not an error: say what happened, after the live progress line.
    if (e.code() == fsicut::ExitCode::temp_fail)
      std::fprintf(stderr, "%sfsicut: %s\n", isatty(fileno(stderr)) && !options.quiet ? "\n" : "", e.what());
    else std::fprintf(stderr, "fsicut: error: %s\n", e.what());
    // A factorization abandoned on the stop may still run on its own thread:
    // end without waiting for it, and without exit()'s destructors beside it.
    if (fsicut::abandoned_jobs() > 0) {
      std::fflush(nullptr);
      std::_Exit(static_cast<int>(e.code()));
    }
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    // The resource estimate let the scene through but the machine disagreed
    // (other jobs, or an estimate off by more than its factor of about 2).
    std::fprintf(stderr, "fsicut: error: out of memory; --validate prints the scene's memory estimate "
                         "(docs/reliability.md, \"Reliability and limits\")\n");
    return static_cast<int>(fsicut::ExitCode::software);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fsicut: internal error: %s\n", e.what());
    return static_cast<int>(fsicut::ExitCode::software);
  }
}
