#pragma once
// The content of one checkpoint as plain data: what the file format stores,
// member for member, with no knowledge of the simulation types it comes from.
// The driver (lib/sim/snapshot.hpp) converts a simulation state to a Snapshot
// and back; lib/checkpoint encodes it (format.hpp) and keeps it in files
// (files.hpp, resume.hpp).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::checkpoint {

// A dense 3-D array, x fastest: values[i + size.x * (j + size.y * k)].
// An empty one (size 0) stands for an array not computed yet.
template <class T>
struct Array3Data {
  Vec3i size{0, 0, 0};
  std::vector<T> values;  // size.x * size.y * size.z
};

// One linear solve's report (the worst of a frame so far).
struct SolveRecord {
  bool converged = false;
  bool met_tolerance = false;
  std::int32_t iterations = 0;
  double relative_residual = 0;
  double round_off_floor = 0;
  std::int32_t unknowns = 0;
  std::string failure;
};

// The partitioned schemes' coupling iterations of a frame so far.
struct PartitionedRecord {
  bool converged = false;
  std::int32_t iterations = 0;
  double interface_residual = 0;  // [m/s]
  double fluid_seconds = 0;
  double solid_seconds = 0;
  double interface_seconds = 0;
};

// The statistics of a frame so far (a checkpoint written inside a frame).
struct FrameRecord {
  std::int32_t frame = 0;
  double time = 0;  // [s]
  std::int32_t substeps = 0;
  std::int32_t cfl_exceeded = 0;
  std::int32_t solves = 0;
  SolveRecord solver;
  std::map<std::string, double> seconds;  // stage -> wall time [s]
  std::optional<PartitionedRecord> partitioned;
  std::string probe_rows;             // probes.csv rows of its substeps
  double load_seconds = 0;            // sum of the substeps' dt weighting the loads [s]
  std::vector<double> solid_loads;    // per solid: sum of dt * (force [N], torque [N m]), 6 each
  std::vector<double> obstacle_loads; // per obstacle, the same
};

// A solid's state: positions and velocities, 3 x #nodes each [m], [m/s].
struct SolidRecord {
  std::string name;
  Points x, v;
};

// A reduced body's state (frame rotation and origin, modal coordinates and
// their rates; solid/reduced.hpp ReducedState).
struct ReducedRecord {
  std::string name;
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Vec3 T{0, 0, 0};      // [m]
  Vec3 v{0, 0, 0};      // [m/s]
  Vec3 omega{0, 0, 0};  // [rad/s]
  std::vector<Real> q, qdot;  // r each
};

// The liquid (fluid/liquid.hpp): marker particles and the grid fields.
struct LiquidRecord {
  Real particle_radius = 0;  // [m]
  Real particle_volume = 0;  // [m^3]
  Points particles;            // 3 x #particles [m]
  std::array<Array3Data<Real>, 3> velocity;  // face velocities per axis [m/s]
  Array3Data<Real> pressure;                 // [Pa]
  Array3Data<Real> liquid_phi;               // [m]
  Array3Data<Real> static_phi;               // obstacles and walls [m]
  Array3Data<Real> solid_phi;                // [m]
  std::array<Array3Data<Real>, 3> fractions;  // face open fractions per axis
  std::array<Array3Data<char>, 3> valid;      // valid-face flags per axis (0/1)
};

// The eulerian scheme's world (eulerian/world.hpp) and what the driver keeps
// beside it (sim/eulerian/simulator.hpp). Nodal fields are 3 values per node,
// cell fields one per cell, in the world's layout (eulerian/q1.hpp).
struct EulerianSolidRecord {
  std::vector<double> u, v;         // displacement [m], velocity copy [m/s]
  std::vector<std::uint8_t> valid;  // per node, 0/1
  std::vector<double> pressure;     // its own warm start [Pa s]
  std::vector<double> plastic;      // F_p per material sample, 9 each (column-major); empty: elastic
};
struct EulerianRecord {
  std::vector<double> velocity;  // the shared velocity of the last step [m/s]
  std::vector<double> pressure;  // the last multiplier [Pa s]
  std::vector<EulerianSolidRecord> solids;
  bool smoke = false;
  std::vector<double> smoke_density;   // per cell
  std::vector<double> smoke_velocity;  // per node, 3 each [m/s]
  std::vector<Points> surfaces;        // per solid, its output surface's vertices [m]
  // The frame tally (sim/eulerian/simulator.hpp EulerianTally).
  std::int32_t tally_frame = -1, tally_substeps = 0;
  std::int64_t velocity_iterations = 0, pressure_iterations = 0, correction_iterations = 0;
  double divergence = 0;
  std::int64_t unknowns = 0, constraints = 0;
  std::int64_t contacts = 0;
};

struct Snapshot {
  std::string fsicut_version;  // of the program that wrote it
  std::string scene;           // the scene fingerprint (canonical JSON of the resolved scene)
  Real time = 0;               // simulated time [s]
  std::int32_t frame = 0;      // last completed frame
  bool mid_frame = false;      // time lies inside frame `frame` + 1
  FrameRecord partial;         // mid_frame: that frame's statistics so far
  std::string stats;           // the stats.jsonl text written so far
  std::string probes;          // the probes.csv text written so far (empty: no probes)
  std::vector<SolidRecord> solids;
  std::vector<ReducedRecord> reduced;  // the reduced solids, in the order of `solids`
  std::vector<Points> surfaces;        // per solid, its surface's vertices as the last stage 4 saw them; empty: none
  std::optional<LiquidRecord> liquid;  // none: a scene without liquid
  // The split faces' piece velocities (fluid/pieces.hpp), per axis runs of
  // (face index, #pieces, that many velocities [m/s]), faces in increasing
  // index order; all empty: none.
  std::array<std::vector<double>, 3> pieces;
  std::optional<EulerianRecord> eulerian;  // coupling/scheme "eulerian" only
};

}  // namespace fsicut::checkpoint
