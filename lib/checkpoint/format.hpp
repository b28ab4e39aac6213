#pragma once
// The checkpoint file format: a Snapshot (snapshot.hpp) as bytes, and back.
// The container (header, sections by tag, sizes, hash) is this file's; what
// each section holds is written and read by the codec named beside it, which
// is the only place that knows its layout.
//
// File format (FORMAT_VERSION 5), every number little-endian (bytes.hpp):
//   header   8 bytes  magic "FSICUTCK"
//            u32      format version
//            u32      number of sections
//            u64      payload size [bytes]
//            u64      FNV-1a 64 hash of the payload (core/hash.hpp)
//   payload  sections in this order, each: 4-byte tag, u32 0 (reserved),
//            u64 size, size bytes
//     "META"  (format.cpp) str fsicut version, u64 FNV-1a 64 of the scene
//             fingerprint, str scene fingerprint
//     "CLCK"  (sim/snapshot.cpp) f64 time [s], i32 frame, u8 mid-frame flag
//             (inspect reads these three), then the frame's statistics so
//             far: i32 frame, f64 time, i32 substeps, i32 cfl_exceeded,
//             i32 solves; the worst solve (reports.hpp linsolve::Report):
//             u8 converged, u8 met_tolerance, i32 iterations,
//             f64 relative_residual, f64 round_off_floor, i32 unknowns,
//             str failure; u32 #stages and per stage str name, f64 seconds;
//             u8 partitioned present, then (reports.hpp
//             coupling::PartitionedReport) u8 converged, i32 iterations,
//             f64 interface_residual, f64 fluid_seconds, f64 solid_seconds,
//             f64 interface_seconds
//     "STAT"  (sim/snapshot.cpp) str the stats.jsonl text
//     "SOLD"  (solids.hpp) u32 #solids; per solid: str name, points x,
//             points v. An Eulerian scene's checkpoint has 0 solids here.
//     "LIQD"  (sim/cutcell/snapshot.cpp, liquid.hpp) u8 liquid present; then
//             f64 particle radius, f64 particle volume, points particles,
//             arrays: face velocities x, y, z, pressure, liquid_phi,
//             static_phi, solid_phi, face fractions x, y, z, valid faces
//             x, y, z. An Eulerian scene's checkpoint has no liquid here.
//     "REDU"  (sim/cutcell/snapshot.cpp, solids.hpp) only when there are
//             reduced solids: u32 #reduced solids; per one: str name, f64 R
//             (9, column-major), f64 T, v, omega (3 each), u32 r, f64 q (r),
//             f64 qdot (r)
//     "SURF"  (sim/cutcell/snapshot.cpp) only with liquid and solids: per
//             solid of SOLD, points: the vertices of its surface as the last
//             stage 4 saw them
//     "MEAS"  (sim/snapshot.cpp) only with probes or a frame's loads so far:
//             str the probes.csv text, str the partial frame's probe rows,
//             f64 its loads' seconds, doubles its solid load sums, doubles its
//             obstacle load sums (6 per solid or obstacle: force, torque)
//     "PIEC"  (liquid.hpp) only when split faces carry piece velocities:
//             doubles x 3 (per axis, runs of face index, #pieces, the pieces'
//             velocities)
//     "EULR"  only with coupling/scheme "eulerian": (eulerian_world.hpp)
//             doubles velocity, doubles pressure; u32 #solids, per solid
//             doubles u, doubles v, bytes valid, doubles pressure; u8 smoke,
//             then doubles density, doubles velocity; (sim/eulerian/
//             snapshot.cpp) u32 #surfaces, points each; i32 tally frame,
//             i32 substeps, i64 velocity, pressure and correction
//             iterations, f64 divergence, i64 unknowns, constraints and
//             contacts; then (eulerian_world.hpp), only when some solid is
//             plastic, u32 #solids and per solid doubles F_p, 9 per sample of
//             eulerian/plasticity.hpp (version 5; version 4 held F_p - I per
//             node of the material grid, which no longer means anything)
//     "FLOW"  (sim/cutcell/snapshot.cpp) only with liquid sources, drains or
//             open sides: f64 liquid added, f64 liquid removed [m^3]
//     "PSUB"  (sim/snapshot.cpp) only when the partial frame's particle
//             sub-steps differ from its substeps (time/particle_cfl): i32
//             particle sub-steps; absent, they equal the substeps
//   (values.hpp) doubles: u64 n, f64 x n;  bytes: u64 n, u8 x n
//   str     u64 length, bytes
//   points  u64 #columns n, f64 3 x n column-major
//   array   u8 element kind (1: f64, 2: u8), 3 x i32 dimensions, the
//           elements (x fastest)
// A file whose size, section sizes or hash do not match is rejected as a
// whole: truncated or corrupted checkpoints are detected, never half-applied.
// A reader asks for the sections it knows by tag; one it does not know is
// kept and ignored. Changing a section's layout means a new FORMAT_VERSION
// (older files are then refused with the version message); a new optional
// section does not.
// tests/sim/test_snapshot_v5.cpp resumes checkpoints of this version written
// by fsicut before these codecs existed (tests/data/checkpoints/v5) and
// writes them again byte for byte.
#include <cstdint>
#include <string>

#include "lib/checkpoint/bytes.hpp"
#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::checkpoint {

inline constexpr std::uint32_t FORMAT_VERSION = 5;

// Section tags.
inline constexpr char SECTION_META[] = "META";
inline constexpr char SECTION_CLOCK[] = "CLCK";
inline constexpr char SECTION_STATS[] = "STAT";
inline constexpr char SECTION_SOLIDS[] = "SOLD";
inline constexpr char SECTION_LIQUID[] = "LIQD";
inline constexpr char SECTION_REDUCED[] = "REDU";
inline constexpr char SECTION_SURFACES[] = "SURF";
inline constexpr char SECTION_MEASURES[] = "MEAS";
inline constexpr char SECTION_EULERIAN[] = "EULR";
inline constexpr char SECTION_PIECES[] = "PIEC";
inline constexpr char SECTION_FLOWS[] = "FLOW";
inline constexpr char SECTION_PARTICLE_STEPS[] = "PSUB";
inline constexpr char SECTION_PENDING_FRAME[] = "PEND";

// The checkpoint of `snapshot` as bytes: META (the scene hash computed from
// snapshot.scene), then its sections in the order listed above (a tag not
// listed there last, in the order added).
std::string encode(const Snapshot& snapshot);

// What a checkpoint says about itself, readable before decoding it.
struct Info {
  std::string fsicut_version;
  std::uint64_t scene_hash = 0;  // FNV-1a 64 of `scene`
  std::string scene;             // the fingerprint
  Real time = 0;                 // [s]
  int frame = 0;                 // last completed frame
  bool mid_frame = false;
};

// Checks the header, the sizes and the hash; throws CorruptError naming
// `file` otherwise.
Info inspect(const std::string& bytes, const std::string& file);

// The snapshot `bytes` hold: META's version and fingerprint and every other
// section as bytes. Inspects them first (throws CorruptError naming `file`);
// the sections' content is checked by the codecs that read it.
Snapshot decode(const std::string& bytes, const std::string& file);

}  // namespace fsicut::checkpoint
