#include "lib/sim/cutcell/particle_steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lib/cutcell/split_cells.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {
namespace {

// More steps than this would mean a substep crossing the grid thousands of
// times over (time/cfl is at most the grid's longest resolution); it only
// bounds the count where the speed is absurd.
constexpr Real MOST_STEPS = 10000;

// The bodies' surfaces between where the last stage 4 left them (`before`)
// and where stage 1 put the bodies (`after`, the substep's end).
class BodySurfaces {
 public:
  explicit BodySurfaces(CutCellSimulator& state) : state_(state) {
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      before_.push_back(state.surfaces.meshes[b].vertices());
      if (before_[b].cols() == 0) continue;
      span_ = std::max(span_, (state.solids[b].x - before_[b]).colwise().norm().maxCoeff());
    }
  }
  // Places the surfaces at fraction f of the way (0: before).
  void place(Real f) {
    if (f == placed_) return;
    for (std::size_t b = 0; b < before_.size(); ++b)
      state_.surfaces.meshes[b].set_vertices(f == 0 ? before_[b]
                                                     : Points(before_[b] + f * (state_.solids[b].x - before_[b])));
    placed_ = f;
  }
  // How far [m] the surfaces at fraction f lie at most from those of the last stage 4.
  Real moved(Real f) const { return f * span_; }

 private:
  CutCellSimulator& state_;
  std::vector<Points> before_;
  Real span_ = 0;
  Real placed_ = 0;
};

}  // namespace

int particle_steps(const CutCellSimulator& state, Real dt) {
  const Real cells = state.scene.time.particle_cfl;
  if (!(cells > 0) || !state.liquid) return 1;
  const Real travel = fluid::max_speed(*state.liquid) * dt / (cells * state.liquid->grid.dx);
  return travel > 1 ? static_cast<int>(std::ceil(std::min(travel, MOST_STEPS))) : 1;
}

ParticlePaths move_particles(CutCellSimulator& state, Real dt, int steps) {
  fluid::Liquid& liquid = *state.liquid;
  // The region of a split cell (cutcell/split_cells.hpp) a point lies in, by
  // the surfaces the split cells were made from.
  const fluid::RegionOf regions = [&state](Index cell, const Vec3& x) {
    const fluid::Liquid& l = *state.liquid;
    return cutcell::region_of(l.split, l.grid, state.surfaces.meshes, cell, x);
  };
  ParticlePaths paths;
  const bool thin = !state.surfaces.meshes.empty();
  if (steps <= 1) {
    if (thin) {
      paths = start_particle_paths(state);
      update_particle_reach(state);
    }
    fluid::move_particles(liquid, dt, regions);
    return paths;
  }
  BodySurfaces bodies(state);
  const Real h = dt / steps;
  for (int k = 0; k < steps; ++k) {
    const Real from = static_cast<Real>(k) / steps, to = static_cast<Real>(k + 1) / steps;
    if (thin) {
      bodies.place(from);
      paths = start_particle_paths(state, bodies.moved(from));
      // The reach and the split cells' regions against the geometry the velocities were projected with.
      bodies.place(0);
      update_particle_reach(state);
    }
    fluid::move_particles(liquid, h, regions);
    if (thin && k + 1 < steps) {
      bodies.place(to);
      stop_particles_at_solids(state, paths, bodies.moved(to));
    }
  }
  return paths;
}

}  // namespace fsicut::sim
