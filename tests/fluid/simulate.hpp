#pragma once
// Test driver: runs fluid::advance with CFL substeps up to a time, calling
// `observe(time, report)` after every step.
#include <algorithm>
#include <cmath>

#include "lib/fluid/liquid.hpp"

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

template <class Observe>
int simulate(fluid::Liquid& liquid, Real duration, Real cfl, Real max_dt, Observe&& observe) {
  Real t = 0;
  int steps = 0;
  while (t < duration - 1e-12) {
    const Real dt = std::min(fluid::cfl_dt(liquid, cfl, max_dt), duration - t);
    const linsolve::Report report = fluid::advance(liquid, dt);
    t += dt;
    ++steps;
    observe(t, report);
  }
  return steps;
}

}  // namespace fsicut::test
