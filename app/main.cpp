// fsicut: two-way coupled liquids and deformable solids from a scene file.
//
//   fsicut SCENE.json [-o DIR] [-j N] [--frames N] [--set /pointer=value ...]
//                     [--validate] [-q|-v] [--version]
//
// main() reads like the run itself: options -> scene -> simulation state ->
// frames -> exit code. Every fsicut::Error maps to the exit code of
// DESIGN.md section 4.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/progress.hpp"
#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/core/parallel.hpp"
#include "fsicut/core/version.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/run.hpp"
#include "lib/sim/state.hpp"

namespace {

struct Options {
  std::string scene;
  std::string output;
  int threads = 0;
  int frames = -1;
  std::vector<std::string> set;
  bool validate = false;
  bool quiet = false;
  bool verbose = false;
};

void define_options(CLI::App& app, Options& o) {
  app.add_option("scene", o.scene, "Scene file (JSON)")->required();
  app.add_option("-o,--output", o.output, "Output folder (overrides output.directory)");
  app.add_option("-j,--threads", o.threads, "Threads; 0 = OMP_NUM_THREADS or all cores")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--frames", o.frames, "Frames to simulate (overrides time.frames)")->check(CLI::NonNegativeNumber);
  app.add_option("--set", o.set, "Override a scene value: --set /json/pointer=value (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--validate", o.validate, "Parse the scene, build the meshes, print a summary; write nothing");
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
  return scene;
}

}  // namespace

int main(int argc, char** argv) {
  // Idle OpenMP threads sleep instead of spinning unless the user says
  // otherwise: on a shared workstation or farm node a spinning team steals
  // the cores other jobs need (measured here with an oversubscribed machine:
  // a 343-node solid solve went from 30 ms to 1 s per step when spinning).
  // Must happen before the OpenMP runtime starts.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
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
    fsicut::set_threads(options.threads);
    const fsicut::scene::Scene scene = load(options);
    fsicut::sim::SimState state = fsicut::sim::build_state(scene);
    if (options.validate) {
      std::fputs(fsicut::sim::summary(state).c_str(), stdout);
      return 0;
    }
    fsicut::app::Progress progress(scene.time.frames, !options.quiet);
    fsicut::sim::run(state, progress.callback());
    progress.finish(scene.output.directory);
    return 0;
  } catch (const fsicut::Error& e) {
    std::fprintf(stderr, "fsicut: error: %s\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fsicut: internal error: %s\n", e.what());
    return static_cast<int>(fsicut::ExitCode::software);
  }
}
