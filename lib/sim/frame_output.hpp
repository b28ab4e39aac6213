#pragma once
// One frame's output files (docs/outputs.md "Files"): `liquid.NNNN.vdb`,
// `<solid>.NNNN.obj` and `smoke.NNNN.vdb`, captured from the state so that they can be written
// while the simulation goes on (sim/run.cpp hands them to a BackgroundTask).
//
// Simulator::capture_frame copies what the files need, already in the output frame
// (output/up_axis): the marker particles, each solid's boundary positions and
// triangles, and the grid and face velocities when output/liquid_velocity asks
// for the velocity grid. write_frame writes the files from that copy alone, so
// the state may change meanwhile and the bytes are those the state had when it
// was captured. Memory: one copy of the particles (24 bytes each) and of the
// solids' surfaces, plus the face velocities with output/liquid_velocity.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/cancel.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/io/atomic.hpp"
#include "lib/io/frame.hpp"
#include "lib/mesh/mesh.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::sim {

struct LiquidOutput {
  Points particles;          // 3 x #particles, output frame [m]
  Real particle_radius = 0;  // [m]
  Real voxel_size = 0;       // [m]
  bool with_particles = false;                  // output/liquid_particles
  std::optional<grid::MacGrid> velocity_grid;   // set with output/liquid_velocity
  grid::MacVelocity velocity;                   // [m/s], simulation frame
};

struct SolidOutput {
  std::string name;
  Points vertices;                          // 3 x #nodes, output frame [m]
  std::vector<mesh::Triangle> triangles;    // the rest mesh's outward boundary
};

// The smoke of the eulerian scheme (fluid/kind "smoke"): `smoke.NNNN.vdb`.
struct SmokeOutput {
  grid::MacGrid grid;
  grid::Array3<Real> density;  // per cell, dimensionless
};

struct FrameOutput {
  int frame = 0;
  Real time = 0;  // [s]
  io::UpAxis up = io::UpAxis::y;
  std::optional<LiquidOutput> liquid;  // scenes with liquid and output/liquid
  std::vector<SolidOutput> solids;     // output/solids (Eulerian solids after the Lagrangian ones)
  std::optional<SmokeOutput> smoke;    // scenes with smoke
};

// "<stem>.NNNN<extension>" (at least 4 digits).
std::string numbered(const std::string& stem, int frame, const char* extension);

// The names of the files `out` writes.
std::vector<std::string> file_names(const FrameOutput& out);

// The liquid VDB's voxel size [m]: output/voxel_size, else half a grid cell
// (the particles resolve the surface finer than the grid does, and a
// renderer sees less voxel stepping).
Real vdb_voxel_size(const scene::Scene& scene);

// The output frame of output/up_axis.
io::UpAxis up_axis(const scene::Scene& scene);

// Writes the files of `out` into `dir`, each atomically (io/atomic.hpp), and
// returns their digests by name. Throws SimulationError (70) for a non-finite
// position or velocity, OutputError (73/74) when a file cannot be written; a
// file written before the failure stays (it is complete). `abandon` (may be
// null): once requested, the next file is not started and the liquid's is
// given up where it is (Abandoned, core/cancel.hpp).
std::map<std::string, io::FileDigest> write_frame(const FrameOutput& out, const std::filesystem::path& dir,
                                                  const AbandonRequest* abandon = nullptr);

}  // namespace fsicut::sim
