#pragma once
// The checkpoint file format: a Snapshot (snapshot.hpp) as bytes, and back.
//
// File format (FORMAT_VERSION 5), every number little-endian (bytes.hpp):
//   header   8 bytes  magic "FSICUTCK"
//            u32      format version
//            u32      number of sections
//            u64      payload size [bytes]
//            u64      FNV-1a 64 hash of the payload (core/hash.hpp)
//   payload  sections in this order, each: 4-byte tag, u32 0 (reserved),
//            u64 size, size bytes
//     "META"  str fsicut version, u64 FNV-1a 64 of the scene fingerprint,
//             str scene fingerprint
//     "CLCK"  f64 time [s], i32 frame, u8 mid-frame flag, then the frame's
//             statistics so far: i32 frame, f64 time, i32 substeps,
//             i32 cfl_exceeded, i32 solves; the worst solve: u8 converged,
//             u8 met_tolerance, i32 iterations, f64 relative_residual,
//             f64 round_off_floor, i32 unknowns, str failure; u32 #stages and
//             per stage str name, f64 seconds; u8 partitioned present, then
//             u8 converged, i32 iterations, f64 interface_residual,
//             f64 fluid_seconds, f64 solid_seconds, f64 interface_seconds
//     "STAT"  str the stats.jsonl text
//     "SOLD"  u32 #solids; per solid: str name, points x, points v
//     "LIQD"  u8 liquid present; then f64 particle radius, f64 particle
//             volume, points particles, arrays: face velocities x, y, z,
//             pressure, liquid_phi, static_phi, solid_phi, face fractions
//             x, y, z, valid faces x, y, z
//     "REDU"  only when there are reduced solids: u32 #reduced solids; per
//             one: str name, f64 R (9, column-major), f64 T, v, omega (3
//             each), u32 r, f64 q (r), f64 qdot (r)
//     "SURF"  only with liquid and solids: per solid of SOLD, points: the
//             vertices of its surface as the last stage 4 saw them
//     "MEAS"  only with probes or a frame's loads so far: str the probes.csv
//             text, str the partial frame's probe rows, f64 its loads' seconds,
//             u64 n and f64 x n its solid load sums, u64 m and f64 x m its
//             obstacle load sums (6 per solid or obstacle: force, torque)
//     "PIEC"  only when split faces carry piece velocities: doubles x 3 (per
//             axis, runs of face index, #pieces, the pieces' velocities)
//     "EULR"  only with coupling/scheme "eulerian" (eulerian_section.hpp):
//             doubles velocity, doubles pressure; u32 #solids, per solid
//             doubles u, doubles v, bytes valid, doubles pressure; u8 smoke,
//             then doubles density, doubles velocity; u32 #surfaces, points
//             each; i32 tally frame, i32 substeps, i64 velocity, pressure and
//             correction iterations, f64 divergence, i64 unknowns, constraints
//             and contacts; then, only when some solid is plastic, u32
//             #solids and per solid doubles F_p, 9 per sample of
//             eulerian/plasticity.hpp (version 5; version 4 held F_p - I per
//             node of the material grid, which no longer means anything)
//   doubles u64 n, f64 x n;  bytes: u64 n, u8 x n
//   str     u64 length, bytes
//   points  u64 #columns n, f64 3 x n column-major
//   array   u8 element kind (1: f64, 2: u8), 3 x i32 dimensions, the
//           elements (x fastest)
// A file whose size, section sizes or hash do not match is rejected as a
// whole: truncated or corrupted checkpoints are detected, never half-applied.
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

// The checkpoint of `snapshot` as bytes. The scene hash of META is computed
// from snapshot.scene.
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

// The snapshot `bytes` hold. Inspects them first; throws CorruptError naming
// `file` (and the section) on malformed content.
Snapshot decode(const std::string& bytes, const std::string& file);

// How messages write an array's dimensions: "16 x 17 x 16".
std::string shape_text(const Vec3i& size);

// How messages name section `tag` of `file`: "<file> (section <tag>)".
std::string section_where(const std::string& file, const char* tag);

// A checkpoint that is intact but does not fit the state the scene builds:
// throws Error(data) "<where>: does not fit this scene: <what>".
[[noreturn]] void throw_mismatch(const std::string& where, const std::string& what);

}  // namespace fsicut::checkpoint
