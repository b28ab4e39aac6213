#include "lib/eulerian/time_step.hpp"

#include <limits>

#include "lib/core/parallel.hpp"

namespace fsicut::eulerian {

namespace {

constexpr Index MIN_PARALLEL_SPEED_NODES = 4096;

// phi(x - u(x)) [m] at every node the solid's band holds, +infinity elsewhere.
std::vector<Real> band_distance(const EulerianSolid& solid) {
  const Index nodes = node_count(solid.grid);
  std::vector<Real> phi(static_cast<std::size_t>(nodes), std::numeric_limits<Real>::infinity());
  parallel_for_from(MIN_PARALLEL_SPEED_NODES, nodes, [&](Index n) {
    if (!solid.valid[n]) return;
    const Vec3 x = solid.grid.origin + solid.grid.dx * node_coord(solid.grid, n).cast<Real>();
    phi[n] = material_distance(solid.shape, x - node_value(solid.u, n));
  });
  return phi;
}

}  // namespace

bool solids_within(const World& world, Real distance) {
  if (world.solids.size() < 2) return false;
  std::vector<std::vector<Real>> phi;
  for (const EulerianSolid& s : world.solids) phi.push_back(band_distance(s));
  const Index nodes = node_count(world.grid);
  for (std::size_t a = 0; a < phi.size(); ++a)
    for (std::size_t b = a + 1; b < phi.size(); ++b)
      for (Index n = 0; n < nodes; ++n)
        if (phi[a][n] + phi[b][n] < distance) return true;
  return false;
}

Real contact_cfl(const World& world, Real near, Real far) {
  return solids_within(world, NEAR_CELLS * world.grid.dx) ? near : far;
}

}  // namespace fsicut::eulerian
