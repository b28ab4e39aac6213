#pragma once
// Test driver for liquids built in code (fluid::make_liquid + add_liquid): puts
// the liquid into a sim::CutCellSimulator and steps it with sim::advance_frames_to, the
// substep driver `fsicut` runs (same CFL rule, same Algorithm 1 step).
#include <algorithm>
#include <cmath>

#include "lib/fluid/liquid.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::test {

// Max |u| [m/s] over the open interior faces with liquid (phi < 0) on at least
// `sides` (1 or 2) sides: 1 = every face the projection sets, including the
// free-surface faces; 2 = faces inside the liquid.
inline Real max_liquid_face_speed(const fluid::Liquid& l, int sides = 1) {
  Vec3 m = Vec3::Zero();
  for (int a = 0; a < 3; ++a)
    for (Index f = 0; f < l.velocity[a].count(); ++f) {
      const Vec3i right = l.velocity[a].coord(f);
      if (right[a] == 0 || right[a] == l.grid.resolution[a] || !(l.fractions[a][f] > 0)) continue;
      Vec3i left = right;
      left[a] -= 1;
      if ((l.liquid_phi(left) < 0) + (l.liquid_phi(right) < 0) < sides) continue;
      m[a] = std::max(m[a], std::abs(l.velocity[a][f]));
    }
  return m.norm();
}

// Height [m] of the liquid surface in the cell column (i, k): the highest
// sign change of the liquid SDF along y, linearly interpolated; the grid's
// bottom when the column holds no surface.
inline Real surface_height(const fluid::Liquid& l, int i, int k) {
  const auto& phi = l.liquid_phi;
  for (int j = l.grid.resolution.y() - 2; j >= 0; --j)
    if (phi(i, j, k) < 0 && phi(i, j + 1, k) >= 0) {
      const Real t = phi(i, j, k) / (phi(i, j, k) - phi(i, j + 1, k));
      return l.grid.cell_center(i, j, k).y() + t * l.grid.dx;
    }
  return l.grid.origin.y();
}

// A simulation of `liquid` alone, as a scene with its grid, gravity and solver
// settings would give: frames of `frame` seconds (so no substep is longer),
// CFL number `cfl`, time.max_substeps at its default.
inline sim::CutCellSimulator liquid_state(fluid::Liquid liquid, Real cfl, Real frame) {
  sim::CutCellSimulator s;
  s.scene.grid.resolution = liquid.grid.resolution;
  s.scene.grid.origin = liquid.grid.origin;
  s.scene.grid.cell_size = liquid.grid.dx;
  s.scene.gravity = liquid.gravity;
  s.scene.fluid.density = liquid.density;
  s.scene.time.fps = 1 / frame;
  s.scene.time.cfl = cfl;
  s.scene.coupling.tolerance = liquid.projection.tolerance;
  s.scene.coupling.max_iterations = liquid.projection.max_iterations;
  s.scene.coupling.allow_unconverged = liquid.projection.allow_unconverged;
  s.liquid = std::move(liquid);
  return s;
}

// Runs `state` for `duration` [s] through sim::advance_frames_to, calling
// observe(time, report of the substep's projection) after every substep.
// Returns the substeps taken.
template <class Observe>
int simulate(sim::CutCellSimulator& state, Real duration, Observe&& observe) {
  sim::AdvanceHooks hooks;
  hooks.after_substep = [&](const sim::Simulator& s, const sim::StepReport& r) { observe(s.time, r.worst_solve); };
  return sim::advance_frames_to(state, state.time + duration, hooks);
}

}  // namespace fsicut::test
