#pragma once
// What the output of an Eulerian solid reads from its state between steps:
// its measures (the keys of stats.jsonl) and its passive surface mesh
// (Teng, Levin & Kim 2016 section 4.6: a mesh carried by the velocity for
// rendering, never fed back into the step).
#include <vector>

#include "lib/eulerian/world.hpp"

namespace fsicut::eulerian {

// The solid as it is now: SolidReport's quantities from its u and its
// velocity copy v (kinetic energy 1/2 sum m |v|^2 over its lumped masses,
// not the last step's shared velocity), plus its mass-weighted centre and
// mean velocity.
struct SolidMeasure {
  SolidReport report;
  Real mass = 0;                  // sum of the lumped masses [kg]
  Vec3 centroid = Vec3::Zero();   // sum m x / sum m over the nodes [m]
  Vec3 mean_velocity = Vec3::Zero();  // sum m v / sum m [m/s]
};
SolidMeasure measure_solid(const EulerianSolid& solid);

// The fastest speed [m/s] in the world: its shared velocity, the fluid
// velocity and each solid's velocity copy on its valid nodes.
Real max_speed(const World& world);

// Moves surface vertices (3 x n, world [m]) through one step of dt [s]:
//   x <- x + dt v_after(x + dt v_before(x)),
// v_before the solid's velocity copy at the start of the step and v_after at
// its end, both interpolated trilinearly on `grid`. For a body translating
// with v^{n+1} = v^n + dt a it moves the vertices by dt v^{n+1}, as line 19
// moves u.
void advect_surface(const grid::MacGrid& grid, const NodeField& v_before, const NodeField& v_after, Real dt,
                    Points& vertices);

}  // namespace fsicut::eulerian
