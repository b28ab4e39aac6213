#pragma once
// What the driver needs of a simulator: one interface, two implementations,
// chosen once where the state is built (sim/build.hpp), as a renderer is
// picked once from its scene.
//
//   sim/cutcell/   CutCellSimulator: Zarifi & Batty 2017's cut-cell coupling of a
//                  liquid (marker particles on a MAC grid) with Lagrangian FEM
//                  solids and static obstacles, one substep = Algorithm 1
//                  (sim/cutcell/step.hpp); scenes with any coupling/scheme but
//                  "eulerian"
//   sim/eulerian/  EulerianSimulator: Teng, Levin & Kim 2016's Eulerian solids
//                  and smoke on the grid's nodes, one substep = the world's step
//                  (lib/eulerian); coupling/scheme "eulerian"
//
// Everything that runs a simulation goes through this interface: the substep
// loop and its CFL rule (sim/advance.hpp), the frame loop with its outputs,
// stats, probes, checkpoints and end-of-frame checks (sim/run.hpp), --validate
// (summary, cost). A simulator owns its state and the clock below; the
// scene it was built from stays with it (the frame-end rule, the CFL number,
// the output options read it).
//
// Layout: the driver's files (sim/*.{hpp,cpp}) include neither
// implementation; an implementation includes the driver's types and never the
// other implementation; only sim/build.cpp includes both
// (tests/architecture/test_layering.cpp checks it).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/checkpoint/snapshot.hpp"
#include "lib/core/timer.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/linsolve/report.hpp"
#include "lib/scene/scene.hpp"
#include "lib/sim/absurd.hpp"
#include "lib/sim/cost.hpp"
#include "lib/sim/frame_output.hpp"
#include "lib/sim/load_tally.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::coupling {
struct CoupledSystem;
}

namespace fsicut::sim {

// Sees each substep's coupled system before it is solved (benchmarks, tests;
// only the cut-cell simulator with liquid and solids has one).
using SystemObserver = std::function<void(const coupling::CoupledSystem&)>;

// What one substep did.
struct StepReport {
  linsolve::Report worst_solve;  // the worst linear solve of the substep (none: solve_count = 0)
  int solve_count = 0;           // how many linear solves it ran
  std::optional<coupling::PartitionedReport> partitioned;  // schemes partitioned and xpm
  FluidLoads loads;  // the liquid's load on each solid and each obstacle (cut-cell, with liquid)
  // The marker particles' RK2 steps in the substep: 1, more with
  // time/particle_cfl (sim/cutcell/particle_steps.hpp).
  int particle_steps = 1;
};

// A solid with tetrahedra turned inside out at the end of a frame (det F <= 0).
struct InvertedSolid {
  std::string name;
  Index elements = 0;
};

class Simulator {
 public:
  explicit Simulator(scene::Scene scene) : scene(std::move(scene)) {}
  virtual ~Simulator() = default;

  scene::Scene scene;  // the scene it was built from
  Real time = 0;       // simulated time [s]
  int frame = 0;       // last completed frame (0 = the initial state)

  // ---- stepping (sim/advance.hpp)
  // Advances the state by dt [s] (time included), adding each stage's wall
  // time to `times`. Throws SimulationError on NaN or a failed solve (unless
  // the scene allows it).
  virtual StepReport step(Real dt, StageTimes& times, const SystemObserver& observe = {}) = 0;
  // The fastest speed anything moves at [m/s], for the CFL rule.
  virtual Real max_speed() const = 0;
  // The CFL number of the substep about to start (time/cfl unless the
  // simulator adapts it).
  virtual Real cfl_number() const { return scene.time.cfl; }
  // The stage names of `seconds` in stats.jsonl, each 0 in a frame that ran
  // none of it (frame 0, a frame resumed at its end).
  virtual std::vector<std::string> stages() const = 0;

  // ---- outputs (sim/frame_output.hpp)
  // What frame `frame` writes, copied out of the state.
  virtual FrameOutput capture_frame() const = 0;
  // The names of the files frame `f` writes.
  virtual std::vector<std::string> frame_file_names(int f) const = 0;

  // ---- measurements
  // Adds the simulator's keys to a frame's stats record (sim/stats.hpp).
  virtual void add_record(nlohmann::json& record, const FrameStats& stats) const = 0;
  // Whether the scene has liquid, and the liquid volume stats.jsonl reports
  // [m^3] (none without liquid; beside thin walls a measure of the split
  // cells' regions, not free).
  virtual bool has_liquid() const { return false; }
  virtual std::optional<Real> liquid_volume() const { return std::nullopt; }
  // probes.csv's header and one row for the state now; empty without probes.
  virtual std::string probes_header() const { return {}; }
  virtual std::string probes_row() const { return {}; }

  // ---- end-of-frame checks (sim/sanity.hpp)
  // Absurd results at the end of frame `frame` (sim/absurd.hpp).
  virtual std::vector<Absurdity> absurdities(const LiquidVolumes& volumes) const = 0;
  // Solids with inverted tetrahedra; none for a simulator without tetrahedra.
  virtual std::vector<InvertedSolid> inverted_solids() const { return {}; }

  // ---- cost and --validate
  virtual SubstepCost estimate_substep() const = 0;
  virtual std::string summary() const = 0;

  // ---- checkpoints (sim/snapshot.hpp: the clock and the run's progress are
  // the driver's; this is the state's part)
  // Adds the state's sections to `snapshot`, written with the codecs of
  // lib/checkpoint (checkpoint/format.hpp lists the sections).
  virtual void save(checkpoint::Snapshot& snapshot) const = 0;
  // Restores what save wrote into a simulator built from the same scene.
  // Throws Error(data = 65) "<file> (section ...): does not fit this scene:
  // ..." when the checkpoint does not fit it, CorruptError naming the section
  // on malformed content.
  virtual void restore(const checkpoint::Snapshot& snapshot, const std::string& file) = 0;
};

// The first lines of every Simulator::summary: the scene file, the grid, the
// frames and the substep rule.
std::string scene_summary(const scene::Scene& scene);

}  // namespace fsicut::sim
