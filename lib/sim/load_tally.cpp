#include "lib/sim/load_tally.hpp"

#include <algorithm>

namespace fsicut::sim {
namespace {

void accumulate(std::vector<Load>& sums, const std::vector<Load>& loads, Real dt) {
  if (sums.size() < loads.size()) sums.resize(loads.size());
  for (std::size_t i = 0; i < loads.size(); ++i) {
    sums[i].force += dt * loads[i].force;
    sums[i].torque += dt * loads[i].torque;
  }
}

std::vector<Load> averaged(const std::vector<Load>& sums, Real seconds, std::size_t count) {
  std::vector<Load> out(count);
  if (!(seconds > 0)) return out;
  for (std::size_t i = 0; i < std::min(count, sums.size()); ++i) {
    out[i].force = sums[i].force / seconds;
    out[i].torque = sums[i].torque / seconds;
  }
  return out;
}

}  // namespace

void LoadTally::add(const FluidLoads& loads, Real dt) {
  seconds += dt;
  accumulate(solids, loads.solids, dt);
  accumulate(obstacles, loads.obstacles, dt);
}

FluidLoads LoadTally::mean(std::size_t solid_count, std::size_t obstacle_count) const {
  return {averaged(solids, seconds, solid_count), averaged(obstacles, seconds, obstacle_count)};
}

}  // namespace fsicut::sim
