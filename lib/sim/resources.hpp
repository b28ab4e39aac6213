#pragma once
// Memory a scene will need, estimated from its description before anything is
// allocated, so that a typo such as `resolution` [2000, 2000, 2000] or
// `output/voxel_size` 1e-4 is refused with the key to change instead of dying
// with std::bad_alloc (or being killed by the kernel) after minutes of set-up.
//
// The estimate is the sum of these terms, each driven by one scene key:
//   grid       cells x BYTES_PER_CELL                        /grid/resolution
//   particles  liquid cells x particles_per_cell x BYTES_PER_PARTICLE
//                                                            /fluid/particles_per_cell
//   vdb        liquid volume / voxel^3 x BYTES_PER_VDB_VOXEL /output/voxel_size
//              (or /grid/cell_size when the voxel size is the default)
//   solids     tets x BYTES_PER_TET; structured boxes: 6 per cell
//                                                            /solids/i/mesh/cells
//              TetGen meshes (sphere, shell, obj): TETGEN_TETS_PER_BOUND x
//              volume / max_tet_volume + TETGEN_TETS_PER_SURFACE_VERTEX (no
//              bound) or TETGEN_TETS_PER_SPLIT_SURFACE_VERTEX (a bound: TetGen
//              may split surface triangles) x surface vertices, the key of the
//              larger part; with a bound, the surface counts at least
//              area / (3.6 bound^(2/3)) vertices (triangles of the bound's size)
//                                                            /solids/i/mesh/max_tet_volume,
//                                                            .../subdivisions or .../path
//   surfaces   OBJ files (solids, obstacles, fluid regions): vertices x
//              BYTES_PER_SURFACE_VERTEX                      .../path
// Liquid volume: the fluid regions' volumes (an OBJ region counts as the whole
// grid), at most the grid's. OBJ files are read (the vertices counted, a
// solid's enclosed volume computed) before anything scene-sized is allocated;
// one that cannot be read adds nothing here (building the mesh reports it).
// The per-item costs were measured on fsicut runs
// (peak resident memory of 100^3 grids with and without liquid: about 400 B
// per cell and 100 B per particle once running) and rounded up; particles
// get 3x for the seeding's temporaries (1.3e8 particles exhausted 25 GB).
// TetGen's tet counts, measured / estimated: a radius 0.2 m sphere (162
// vertices) with bounds 1e-4, 1e-5, 1e-6 m^3: 1962 / 2630, 9203 / 13100,
// 67632 / 114000; spheres of 162, 642, 2562 vertices without a bound: 320 /
// 650, 1968 / 2570, 8864 / 10250; meshes/dino.obj (866 vertices, fine
// features): 3047 / 3460 without a bound, 12849 / 8800, 15941 / 10100, 32913
// / 22800 with 1e-4, 1e-5, 1e-6; meshes/torus.obj (512 vertices): 1338 / 2050,
// 2666 / 6840, 14887 / 24200, 121437 / 205000. So within a factor of 2.6.
// The estimate is meant to be within a factor of about 2 of the peak.
#include <cstdint>
#include <string>
#include <vector>

#include "lib/scene/scene.hpp"

namespace fsicut::sim {

inline constexpr double BYTES_PER_CELL = 400;
inline constexpr double BYTES_PER_PARTICLE = 300;
inline constexpr double BYTES_PER_VDB_VOXEL = 8;
inline constexpr double BYTES_PER_TET = 2000;
// A 10-node tet: its 30 x 30 rest stiffness (7.2 kB) and about 3x the
// stiffness and factor entries per node of a linear mesh.
inline constexpr double BYTES_PER_QUADRATIC_TET = 20000;
inline double bytes_per_tet(const scene::SolidDesc& s) {
  return s.element == scene::SolidDesc::Element::quadratic ? BYTES_PER_QUADRATIC_TET : BYTES_PER_TET;
}
inline constexpr double TETGEN_TETS_PER_BOUND = 3;
inline constexpr double TETGEN_TETS_PER_SURFACE_VERTEX = 4;          // no volume bound: surface kept
inline constexpr double TETGEN_TETS_PER_SPLIT_SURFACE_VERTEX = 10;   // a volume bound: surface refined
// The OBJ reader's temporaries, the surface and its distance-field data.
inline constexpr double BYTES_PER_SURFACE_VERTEX = 500;

struct ResourceTerm {
  std::string what;     // "grid", "particles", "liquid VDB", "solid <name>", "<pointer> surface"
  std::string unit;     // what `count` counts: "cells", "particles", "voxels", "tetrahedra", "vertices"
  std::string pointer;  // the scene key that drives it
  double count = 0;
  double bytes = 0;     // estimated peak memory [bytes]
};

struct ResourceEstimate {
  std::vector<ResourceTerm> terms;
  double total_bytes = 0;
};

ResourceEstimate estimate_resources(const scene::Scene& scene);

// The memory fsicut may use [bytes]: the machine's physical memory, or the
// smallest memory limit of the control groups the process runs in (Slurm,
// Docker and systemd set them; cgroup v1 and v2) when that is smaller.
double available_memory();

// Throws SceneError (65) naming the scene file and the pointer of the largest
// term when estimate.total_bytes exceeds `limit_bytes`. `limit_source` says
// where the limit came from, for the message ("this machine's memory",
// "--max-memory").
void check_resources(const scene::Scene& scene, const ResourceEstimate& estimate, double limit_bytes,
                     const std::string& limit_source);

// "1.5 GB", "820 MB", ... (decimal units).
std::string format_bytes(double bytes);

// One line per term and a total, for --validate.
std::string describe(const ResourceEstimate& estimate, double limit_bytes, const std::string& limit_source);

}  // namespace fsicut::sim
