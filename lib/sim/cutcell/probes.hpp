#pragma once
// The scene's probes (scene key `probes`): what engineers read off an
// experiment, sampled after every substep into probes.csv (sim/run.hpp).
//
// probes.csv: a header line, then one row per substep, comma-separated:
//   time [s], then per probe in scene order
//   pressure  <name>                       the pressure [Pa] at the point: the
//             cell-centred pressure of the last projection interpolated
//             trilinearly from the cells whose centre is in the liquid; 0 where
//             the point is in air (liquid SDF > 0) or no such cell is near
//   gauge     <name>                       the height y [m] of the free surface
//             on the vertical segment: scanning up from its lower end, where
//             the line first leaves the liquid into air (the liquid SDF,
//             interpolated at the segment's x, z on the cell-centre levels and
//             linearly between them, crosses from < 0 to >= 0): the top of the
//             water standing on the bottom. Between two cell-centre levels the
//             height within them comes from the particles' smoothed liquid
//             fraction summed up the column around the crossing (exact for a
//             surface flat over 3 cells, wherever it lies in its cell; the
//             crossing alone is up to 0.05 cell off); the crossing itself at
//             the segment's ends or when those cells reach into a solid.
//             Spray and drops above it are
//             ignored, a solid below it (dry or inside the SDF's extension
//             into solids) does not count, an air pocket inside the column
//             ends it there. The segment's top when the liquid reaches it,
//             its lower end when the line meets no liquid
//   point     <name>.dx, .dy, .dz          the displacement [m] of a material
//             <name>.vx, .vy, .vz          point of a solid from its rest
//             position, and its velocity [m/s]: the nodal values interpolated
//             with the point's barycentric coordinates in its rest tetrahedron
// Numbers are printed with %.9g.
#include <array>
#include <string>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/scene/scene.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::sim {

class CutCellSimulator;

// A probe ready to sample: the scene's description and, for a point probe,
// where it sits in its solid.
struct ProbeSite {
  scene::Probe probe;
  std::size_t solid = 0;                     // point: index in CutCellSimulator::solids
  std::array<int, 4> nodes{0, 0, 0, 0};      // point: the rest tetrahedron's corners
  std::array<Real, 4> weights{0, 0, 0, 0};   // point: barycentric coordinates, sum 1
};

// The sites of the scene's probes. A point probe's position must lie in its
// solid's rest mesh (within round-off); otherwise SceneError naming the
// probe's pointer.
std::vector<ProbeSite> probe_sites(const std::vector<scene::Probe>& probes, const std::vector<solid::Body>& solids,
                                   const std::string& scene_file);

// probes.csv's header line (with "\n"); "" without probes.
std::string probes_header(const std::vector<ProbeSite>& sites);

// One row (with "\n") of the state as it is now: CutCellSimulator::probes_row.

// The single readings, for tests and the row: pressure [Pa] at x, the free
// surface height [m] on a gauge's segment, a point's displacement [m] and velocity [m/s].
Real probe_pressure(const CutCellSimulator& state, const Vec3& x);
Real gauge_height(const CutCellSimulator& state, const scene::Probe& gauge);
Vec3 point_displacement(const CutCellSimulator& state, const ProbeSite& site);
Vec3 point_velocity(const CutCellSimulator& state, const ProbeSite& site);

}  // namespace fsicut::sim
