#pragma once
// Per-frame statistics: one line of stats.jsonl, and run.json.
#include <map>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/coupling/partitioned.hpp"
#include "lib/linsolve/report.hpp"
#include "lib/scene/scene.hpp"
#include "lib/sim/load_tally.hpp"

namespace fsicut::sim {

class Simulator;

struct FrameStats {
  int frame = 0;
  Real time = 0;                          // [s]
  int substeps = 0;                       // projections (Algorithm 1's substeps)
  int particle_substeps = 0;              // the marker particles' RK2 steps (StepReport::particle_steps summed)
  int cfl_exceeded = 0;                   // substeps whose dt exceeded the CFL limit (max_substeps hit)
  linsolve::Report solver;                // worst linear solve of the frame
  int solves = 0;                         // linear solves in the frame
  // Schemes partitioned and xpm: the substep with the most iterations, and
  // every substep's seconds per side summed.
  std::optional<coupling::PartitionedReport> partitioned;
  std::map<std::string, double> seconds;  // wall time per Algorithm 1 stage, plus "output" [s]
  LoadTally loads;                        // the liquid's loads, summed over the substeps (sim/load_tally.hpp)
  std::string probe_rows;                 // probes.csv rows of the substeps (sim/cutcell/probes.hpp)
};

// One stats.jsonl line (no trailing newline) with the contract keys of
// docs/outputs.md ("stats.jsonl keys"): frame, time, substeps, liquid_volume [m^3],
// max_fluid_speed [m/s], solver {iterations, relative_residual, converged,
// met_tolerance, round_off_floor, tolerance, solves}, solids [{name, centroid, volume, mean_velocity, kinetic_energy,
// elastic_energy, linear_momentum [kg m/s], angular_momentum [kg m^2/s] (about the solid's centre of mass),
// max_strain, inverted_elements; a reduced body also modes (r) and modal_energy [J]
// (solid::modal_energy), fluid_force [N], fluid_torque [N m] (about the centre of mass)}],
// obstacles [{index, fluid_force [N], fluid_torque [N m] (about the shape's centre)}] (sim/cutcell/loads.hpp:
// means over the frame's substeps; zeros for frame 0), seconds {stage: s}, plus cfl_exceeded
// and particle_substeps (= substeps unless time/particle_cfl splits them);
// with the partitioned schemes solver also holds coupling_iterations (the
// substep with most), interface_residual [m/s] (of that substep),
// interface_converged, and fluid_seconds, solid_seconds, interface_seconds
// (summed over the frame's substeps).
// solver: the worst solve of the frame (linsolve::worst). converged: every
// solve passed its acceptance test, which for PCG is relative_residual <=
// max(tolerance, 10 x round_off_floor); met_tolerance: every solve reached
// relative_residual <= tolerance (coupling/tolerance, repeated as `tolerance`);
// round_off_floor: the attainable relative residual in double precision of
// the worst solve (0 when the solver does not compute it). converged true with
// met_tolerance false means a solve stopped at the round-off floor above the
// tolerance: the system cannot be solved more accurately in double precision.
// The driver writes the keys every scene has (with liquid and solid entries
// empty or 0); the simulator adds its own (Simulator::add_record): the
// cut-cell one the liquid and solids above, the Eulerian one its solids and
// `eulerian` record (sim/eulerian/simulator.hpp).
std::string stats_line(const Simulator& sim, const FrameStats& stats);

// stats_line in two parts, for a frame whose files are written after the
// state has moved on: the frame's record (every key but `seconds`), taken from
// the state at the frame's end, and the line made from it once the seconds are
// known. stats_line(frame_record(sim, s), s.seconds) == stats_line(sim, s).
nlohmann::json frame_record(const Simulator& sim, const FrameStats& stats);
std::string stats_line(nlohmann::json record, const std::map<std::string, double>& seconds);

// The liquid_books (sim/absurd.hpp) of the first line of a stats.jsonl text,
// if any: the reference for the liquid volume drift warning (run.hpp).
std::optional<Real> first_liquid_volume(const std::string& stats_text);

// The run record: fsicut and library versions, threads, OMP_WAIT_POLICY as the
// run saw it ("" when unset), the resolved scene.
std::string run_record(const scene::Scene& scene, int threads);

}  // namespace fsicut::sim
