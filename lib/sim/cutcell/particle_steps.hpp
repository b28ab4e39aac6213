#pragma once
// Stage 2 for the marker particles: one RK2 step per substep, or several when
// the scene sets time/particle_cfl, so that the projection (the coupled solve)
// can take longer substeps (time/cfl above 1) while no particle moves more
// than particle_cfl cells in one step.
//
// With n = particle_steps(state, dt) > 1 the particles take n equal steps of
// dt / n through the same velocities (those the last projection left,
// extrapolated cfl + 2 faces into the air: sim/from_scene.hpp, so they reach
// as far as a particle travels in the substep). Each step reads the
// velocities on its side of a thin solid (the neighbour reach at its start,
// against the geometry of the last stage 4, the one the velocities were
// projected with), and its path is tested against the solids' triangles
// (sim/cutcell/particle_paths.hpp) with the bodies' surfaces placed where
// they are at that step's end: stage 1 has moved the bodies to the substep's
// end, x(t + dt) = x(t) + dt v, so at k / n of the way the surface is the
// linear interpolation of the two. The last step's test is stage 6's, against
// the surfaces of this substep's stage 4, as with a single step. Moving
// obstacles stay where stage 1 placed them (the substep's end) for every
// step's test. Nothing is kept between substeps: a checkpoint resumes as
// with one step.
#include "lib/core/types.hpp"
#include "lib/sim/cutcell/particle_paths.hpp"

namespace fsicut::sim {

class CutCellSimulator;

// How many particle steps a substep of dt [s] takes: ceil(v dt / (particle_cfl
// dx)) with v the fastest liquid face (fluid::max_speed), at least 1; 1 when
// time/particle_cfl is absent.
int particle_steps(const CutCellSimulator& state, Real dt);

// Moves the marker particles over dt [s] in `steps` steps as above (the
// liquid must exist). Returns the last step's paths, for stage 6.
ParticlePaths move_particles(CutCellSimulator& state, Real dt, int steps);

}  // namespace fsicut::sim
