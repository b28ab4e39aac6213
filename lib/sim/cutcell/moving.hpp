#pragma once
// Obstacles and pinned regions that move as the scene prescribes
// (obstacles/*/motion, solids/*/pinned/*/motion; scene/motion.hpp). The
// motion is a pure function of time, so nothing here is state: every substep's
// stage 1 places them at the substep's end time, t + dt, where the solids'
// positions go too, and a resumed run places them at the restored time.
//
// A moving obstacle is a moving wall: its node distance is sampled every
// substep around where it is (its distance as the scene places it, at the
// inverse of its motion: exact for a rigid motion) and united with the static
// obstacles' into the liquid's solid SDF, its face fractions recomputed
// there; its triangle surface (boxes and obj meshes) moves with it in
// SolidSurfaces::meshes, so the thin-wall tests, the split cells and the
// particle paths (which carry a particle's start with the surface it was
// near) see it where it is; its load surface moves with it. The liquid's
// boundary condition on it is its velocity: the volume balance of every cell
// counts the closed part of each face as moving with the wall (wall_velocity,
// fluid/pressure_projection.hpp), and stage 6's constraint keeps the normal
// velocity inside it equal to its own (solid_velocity).
//
// A driven pinned region sets its nodes' positions and velocities; the solid
// solve and the coupled system take them as known (solid/integrate.hpp,
// sim/cutcell/coupling_matrix.hpp).
#include <cstddef>
#include <vector>

#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/scene/scene.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::sim {

class CutCellSimulator;

struct MovingObstacle {
  std::size_t obstacle = 0;     // index in scene.obstacles
  levelset::StaticSolid rest;   // its distance as the scene places it [m]
  Vec3 centre{0, 0, 0};         // the shape's centre, the default pivot [m]
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};  // bounding box of the shape as placed [m]
  int surface = -1;             // its entry in SolidSurfaces::meshes, or -1 (spheres, inside-out)
  Points rest_vertices;         // that surface's vertices as placed [m]
  Points load_vertices;         // its load surface's vertices as placed (sim/cutcell/loads.hpp) [m]
  Vec3 load_centre{0, 0, 0};    // the point its torque is taken about, as placed [m]
  scene::MotionState now;       // the motion at the state's time (place_moving)
};

struct PinnedDrive {
  std::size_t body = 0;   // index in CutCellSimulator::solids
  std::size_t region = 0; // index in the solid's pinned list
  Vec3 centre{0, 0, 0};   // the region's centre, the default pivot [m]
  std::vector<int> nodes; // the pinned nodes whose rest position lies in the region
};

struct Motions {
  std::vector<MovingObstacle> obstacles;
  std::vector<PinnedDrive> pinned;
  grid::MacVelocity wall;  // workspace of update_wall_velocity
  // Each obstacle's placement when add_moving_obstacles last ran (empty: never).
  std::vector<scene::MotionState> placed;
  bool empty() const { return obstacles.empty() && pinned.empty(); }
};

// The scene's moving obstacles (without their surfaces: set by
// attach_obstacle_surfaces) and driven pinned regions of `bodies`. Throws
// SceneError naming the motion's pointer when it takes an obstacle or a
// pinned region wholly out of the grid at some time (refused, not clipped:
// scenes/README.md "Motion"), or when a reduced body has a driven region.
Motions make_motions(const scene::Scene& scene, const std::vector<solid::Body>& bodies,
                     const std::vector<levelset::StaticSolid>& obj_solids);

// The scene's static obstacles (those without motion) only.
std::vector<scene::Shape> static_obstacles(const std::vector<scene::Shape>& obstacles);

// Links each moving obstacle to its entry of `surfaces.meshes` (bodies first,
// then sim::obstacle_surfaces in obstacle order).
void attach_obstacle_surfaces(CutCellSimulator& state);

// Places everything that moves at time t [s] (stage 1, at the substep's end
// time): the moving obstacles' motion states (`now`, which the CFL rule, the
// projection's wall velocity and stage 6 read) and the driven pinned nodes'
// x and v. The obstacles' surfaces follow in stage 4 (add_moving_obstacles):
// stage 2's particle paths and reach read the surfaces of the last stage 4.
void place_moving(CutCellSimulator& state, Real t);

// Moves the obstacles' triangle surfaces (SolidSurfaces::meshes) and load
// surfaces to their `now`.
void place_obstacle_surfaces(CutCellSimulator& state);

// Whether some moving obstacle stands elsewhere than when
// add_moving_obstacles last ran (true when it never ran): without bodies,
// stage 4 recomputes the solid fields only then.
bool obstacles_moved(const CutCellSimulator& state);

// Stage 4: place_obstacle_surfaces, then the moving obstacles' distances
// united into liquid.solid_phi (after the static part) and the face
// fractions around them.
void add_moving_obstacles(CutCellSimulator& state);

// The velocity [m/s] at x of the moving obstacle nearest to x within `band`
// [m] (signed distance), when it is nearer than the static obstacles, and
// its distance in `distance` (when given); false (nothing set) when none is.
bool moving_obstacle_velocity(const CutCellSimulator& state, const Vec3& x, Real band, Vec3& v,
                              Real* distance = nullptr);

// The projection's wall velocity (fluid/pressure_projection.hpp
// assemble_pressure) in state.motions.wall: on every interior face within
// the band of a moving obstacle and nearer to it than to a static one, its
// velocity's component along the face's axis [m/s]; zero elsewhere (the
// domain's walls included). Null when no obstacle moves.
const grid::MacVelocity* update_wall_velocity(CutCellSimulator& state);

// The fastest moving obstacle's or driven node's speed at time t [m/s]
// (a bound: translation plus |omega| times the farthest corner).
Real moving_speed(const CutCellSimulator& state);

}  // namespace fsicut::sim
