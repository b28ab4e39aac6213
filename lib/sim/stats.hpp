#pragma once
// Per-frame statistics: one line of stats.jsonl, and run.json.
#include <map>
#include <string>
#include <vector>

#include "lib/linsolve/report.hpp"
#include "lib/sim/state.hpp"

namespace fsicut::sim {

struct FrameStats {
  int frame = 0;
  Real time = 0;                          // [s]
  int substeps = 0;
  int cfl_exceeded = 0;                   // substeps whose dt exceeded the CFL limit (max_substeps hit)
  linsolve::Report solver;                // worst linear solve of the frame
  int solves = 0;                         // linear solves in the frame
  std::map<std::string, double> seconds;  // wall time per Algorithm 1 stage, plus "output" [s]
};

// One stats.jsonl line (no trailing newline) with the contract keys of
// DESIGN.md section 4: frame, time, substeps, liquid_volume [m^3],
// max_fluid_speed [m/s], solver {iterations, relative_residual, converged,
// solves}, solids [{name, centroid, volume, mean_velocity, kinetic_energy,
// elastic_energy}], seconds {stage: s}, plus cfl_exceeded.
std::string stats_line(const SimState& state, const FrameStats& stats);

// The run record: fsicut and library versions, threads, the resolved scene.
std::string run_record(const SimState& state, int threads);

}  // namespace fsicut::sim
