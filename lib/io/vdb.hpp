#pragma once
// OpenVDB output of the liquid surface, one file per frame (`liquid.0001.vdb`,
// docs/outputs.md "Files"), and a small reader for tests and tools.
// OpenVDB itself is only included by vdb.cpp.
//
// The file holds one FloatGrid named `surface`, class level set (Houdini,
// Blender and every VDB tool render it as a surface), a narrow band of
// VDB_HALF_WIDTH voxels on each side, values in metres, negative inside the
// liquid. Its transform is linear and uniform with voxel size `voxel_size`
// metres: voxel (i, j, k) is centred at world (i, j, k) * voxel_size, so world
// space is simulation space (no offset, no scaling).
//
// The surface is the union of spheres of one radius r around the marker
// particles, the paper's "union-of-spheres approximation" (Sec. 7), rasterized
// with openvdb::tools::ParticlesToLevelSet and then rebuilt from its zero
// crossing (openvdb::tools::levelSetRebuild) so the band holds true signed
// distances on both sides:
//     surface = { x : min_p |x - p| = r }.
// With the simulator's radius this is exactly the liquid the simulator sees
// (levelset/liquid_sdf), sampled on the VDB voxels: the VDB encloses the
// simulated liquid, without holes, and is slightly larger than its volume.
//
// Particle radius convention, liquid_particle_radius(dx) = dx / 2:
// particles are seeded 8 per cell (2 per axis, spacing h = dx / 2, jittered),
// so a block of liquid has its outer particle layer h / 2 = dx / 4 inside its
// true boundary. The radius must
//  - enclose: every point of the liquid lies inside some sphere, or the surface
//    shows holes and the simulator sees air bubbles. A perfect lattice needs
//    r >= sqrt(3) h / 2 = 0.433 dx; measured over the interior of a 16^3-cell
//    block, seeding jittered by half a sub-cell (fluid/particles.cpp) needs
//    0.492 dx, a jitter over the whole sub-cell 0.581 dx;
//  - add little volume: the union pads the outer layer by up to r where dx / 4
//    would be exact, so the VDB volume exceeds the liquid's by O(dx / size).
// r = dx / 2 = h is the smallest round value that encloses the fluid module's
// seeding (and the value levelset/liquid_sdf uses). Volume error of the VDB
// (levelSetVolume against the exact liquid volume) for liquid seeded 8 per cell
// with half-sub-cell jitter:
//                                    voxel = dx   voxel = dx / 2
//     16^3-cell block (test)           +6.2 %       +6.2 %
//     32^3-cell block                  +3.0 %       +3.1 %
//     ball of radius 8 dx              +6.8 %      +10.1 %
//     ball of radius 12 dx (test)                   +6.4 %
// i.e. the surface sits on average about 0.17 dx outside the true boundary
// (0.11 to 0.39 dx over 26 directions on the 12 dx ball; never more than r).
// The error is O(dx / size): it halves each time the liquid is twice as many
// cells across. The voxel size matters little (voxel = dx smooths sub-voxel
// bumps away, which lowers the volume of a small ball by ~3 %). Larger radii
// cost volume: r = 0.6 dx gives +10.8 % on the 16^3 block.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lib/core/cancel.hpp"
#include "lib/core/types.hpp"
#include "lib/io/atomic.hpp"

namespace fsicut::io {

// Narrow-band half width of the written level set [voxels]: OpenVDB's default
// (LEVEL_SET_HALF_WIDTH), enough for renderers' and filters' stencils.
inline constexpr Real VDB_HALF_WIDTH = 3;

// Name of the one grid in a liquid VDB file.
inline constexpr const char* LIQUID_GRID_NAME = "surface";

// The radius [m] of the sphere around each marker particle, for a simulation
// grid of cell size `cell_size` [m] seeded with 8 particles per cell:
// levelset::PARTICLE_RADIUS_CELLS * cell_size, the radius of the simulator's
// liquid SDF, so both describe the same liquid.
Real liquid_particle_radius(Real cell_size);

// Per-file metadata, stored on the grid (as `frame`, `time`) together with
// `fsicut_version`, `particle_radius` [m] and `voxel_size` [m].
struct VdbMetadata {
  Index frame = 0;  // frame number (0 = initial state)
  Real time = 0;    // simulated time [s]
};

// Writes the union-of-spheres level set of `particles` to `path`, atomically
// (lib/io/atomic.hpp). The file is first serialized in memory, in exactly the
// bytes openvdb::io::File would write, then written and checked by fsicut:
// io::File does not report a failing stream (a full disk left a truncated
// file behind). Returns the digest of the bytes written.
//
//   particles        3 x #particles, world positions [m]; may be empty (0
//                    columns): the file then holds a valid empty level set
//                    (everything outside, no active voxels)
//   particle_radius  sphere radius r [m], > 0 (liquid_particle_radius(dx))
//   voxel_size       [m], > 0; the cell size gives a surface as coarse as the
//                    simulation, cell size / 2 a smoother one (8x the voxels)
//
// Spheres smaller than a voxel are rasterized too (OpenVDB drops particles under
// 1.5 voxels by default; ours are sub-voxel when voxel_size = cell size).
// Throws SimulationError (70) for a non-finite particle position or a
// non-positive radius or voxel size, OutputError (73/74) if the file cannot be
// written. Parallel (TBB, inside OpenVDB); the result does not depend on the
// thread count. Cost grows with the liquid's volume (every particle is
// rasterized) plus its surface (the rebuild): 262k particles (a 32^3-cell
// block) take about 1.7 s to rasterize and 1-2.6 s to rebuild at voxel = dx
// and dx / 2 on this project's shared 2-core machine.
//
// With `velocity` (output/liquid_velocity), the file also holds a vec3s grid
// LIQUID_VELOCITY_GRID_NAME = "v" [m/s] on the same transform and the same
// active voxels as `surface` (its narrow band), each the liquid's velocity
// at the voxel centre as velocity(world position) returns it; renderers use it
// for motion blur, Houdini and Blender for whitewater and advection. Class
// "unknown", vector type contravariant-relative (OpenVDB's convention for
// velocities: rotated with the transform, not translated).
//
// With `with_particles` (output/liquid_particles), the file also holds the
// marker particles themselves as an OpenVDB points grid
// LIQUID_PARTICLES_GRID_NAME = "particles" (attribute P, positions as given,
// on the same voxel size), for renderers and tools that work on points.
//
// `abandon` (may be null): looked at between the steps and inside OpenVDB's
// rasterization and rebuild; once requested, throws Abandoned (core/cancel.hpp)
// before anything is written (a stop does not wait for a frame's seconds).
using VelocityField = std::function<Vec3(const Vec3& world)>;
inline constexpr const char* LIQUID_VELOCITY_GRID_NAME = "v";
inline constexpr const char* LIQUID_PARTICLES_GRID_NAME = "particles";
FileDigest write_liquid_vdb(const std::filesystem::path& path, const Points& particles,
                            Real particle_radius, Real voxel_size, const VdbMetadata& meta,
                            const VelocityField& velocity = {}, bool with_particles = false,
                            const AbandonRequest* abandon = nullptr);

// The number of points in the points grid `name` of the VDB file at `path`
// and their centroid [m] (0 when empty). Throws as read_vdb_info, and Error
// (65) when there is no such points grid. For tests and tools.
struct VdbPoints {
  Index count = 0;
  Vec3 centroid{0, 0, 0};
};
VdbPoints read_vdb_points(const std::filesystem::path& path, const std::string& name);

// The vec3 grid `name` of the VDB file at `path` at world position `world`
// [m], trilinearly interpolated; (0, 0, 0) outside its active voxels. Throws as
// read_vdb_info, and Error (65) when there is no such vec3s grid. For tests and tools.
Vec3 sample_vdb_vector(const std::filesystem::path& path, const std::string& name, const Vec3& world);

// What read_vdb_info() reports about the first grid of a VDB file.
struct VdbInfo {
  std::string name;            // grid name, "surface" for fsicut's liquid
  std::string grid_class;      // OpenVDB's class string: "level set", "fog volume", ...
  Real voxel_size = 0;         // [m], x extent of a voxel
  bool uniform_linear = false; // linear transform with equal voxel extents
  Vec3 origin_of_index_0{0, 0, 0};  // world position of voxel (0, 0, 0)'s centre [m]
  Index active_voxels = 0;     // voxels in the narrow band
  Real volume = 0;             // volume inside the level set [m^3]
                               // (openvdb::tools::levelSetVolume; 0 if empty)
  Real min_value = 0;          // smallest stored value [m] (deepest inside)
  Index inside_voxels = 0;     // voxels (active or not) with a negative value
};

// Reads the first grid of the VDB file at `path` (must be a float grid).
// Throws MissingInputError (66) if the file does not exist, Error(data, 65) if
// it is not a readable VDB file or holds no float grid.
VdbInfo read_vdb_info(const std::filesystem::path& path);

// The value of the first (float) grid of the file at world position `world`
// [m], trilinearly interpolated between voxel centres. Outside the narrow band
// it is the background: +VDB_HALF_WIDTH voxels outside, -VDB_HALF_WIDTH voxels
// inside. Opens and reads the file on every call: for tests and tools.
Real sample_vdb(const std::filesystem::path& path, const Vec3& world);

// The volume scripts/preview renders for one frame: the liquid and the solids
// as one level set, coloured apart, for OpenVDB's vdb_render (which ray-traces
// one float level set and takes material colours from a vec3s grid).
inline constexpr const char* PREVIEW_SURFACE_GRID = "surface";  // float level set [m]
inline constexpr const char* PREVIEW_COLOR_GRID = "color";      // vec3s, RGB in [0, 1]

// Writes `out` with two grids on one uniform transform of `voxel_size` [m]:
//  - `surface`: the union (CSG) of the liquid level set read from `liquid_vdb`
//    (its grid `surface` of fsicut's liquid.NNNN.vdb, whatever other grids
//    it holds; an empty path: no liquid) and each closed
//    surface of `solids` (3 x #vertices positions and triangles, as in the
//    OBJ files), converted with openvdb::tools::meshToLevelSet;
//  - `color`: on the active voxels of `surface`, blue where the liquid's
//    distance is the smaller, orange elsewhere.
// Both in the files' own frame (output/up_axis). Throws MissingInputError or
// Error (65) for a missing or unreadable liquid file, OutputError (73/74) if
// `out` cannot be written.
struct PreviewSolid {
  Points vertices;
  std::vector<Eigen::Vector3i> triangles;
};
void write_preview_vdb(const std::filesystem::path& out, const std::filesystem::path& liquid_vdb,
                       const std::vector<PreviewSolid>& solids, Real voxel_size);

}  // namespace fsicut::io
