#pragma once
// Test driver: runs fluid::advance with CFL substeps up to a time, calling
// `observe(time, report)` after every step.
#include <algorithm>

#include "lib/fluid/liquid.hpp"

namespace fsicut::test {

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
