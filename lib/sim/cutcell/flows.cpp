#include "lib/sim/cutcell/flows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lib/core/parallel.hpp"

#include "lib/sim/cutcell/obstacles.hpp"
#include "lib/sim/cutcell/particle_paths.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {
namespace {

std::vector<LiquidFlows::Zone> zones(const std::vector<scene::Shape>& shapes, const std::string& scene_file) {
  std::vector<LiquidFlows::Zone> out;
  for (const scene::Shape& s : shapes) {
    ShapeTest test = shape_test(s, scene_file);
    out.push_back({std::move(test.inside), {test.min, test.max}, s.velocity, s.from, s.until});
  }
  return out;
}

// The jitter key of source `index` in the substep starting at time t: the
// time's bits, so a resumed run keys the same.
std::uint64_t fill_key(unsigned seed, std::size_t index, Real t) {
  std::uint64_t bits = 0;
  static_assert(sizeof bits == sizeof t);
  std::memcpy(&bits, &t, sizeof bits);
  return fluid::mix(fluid::mix(bits) ^ (static_cast<std::uint64_t>(seed) << 32) ^ index);
}

}  // namespace

bool LiquidFlows::any(const fluid::OpenSides& open) const {
  return !sources.empty() || !drains.empty() || std::find(open.begin(), open.end(), true) != open.end();
}

LiquidFlows make_flows(const scene::Scene& scene) {
  LiquidFlows f;
  f.sources = zones(scene.fluid.sources, scene.file);
  f.drains = zones(scene.fluid.drains, scene.file);
  return f;
}

Carried carried_by_sources(const CutCellSimulator& state) {
  Carried c;
  if (!state.liquid) return c;
  std::vector<const LiquidFlows::Zone*> active;
  for (const LiquidFlows::Zone& z : state.flows.sources)
    if (z.active(state.time)) active.push_back(&z);
  if (active.empty()) return c;
  const Points& x = state.liquid->particles;
  std::vector<int> by(static_cast<std::size_t>(x.cols()), -1);
  parallel_for(0, x.cols(), [&](Index p) {
    const Vec3 at = x.col(p);
    for (std::size_t s = 0; s < active.size(); ++s) {
      const fluid::Bounds& b = active[s]->bounds;
      if ((at.array() >= b.min.array()).all() && (at.array() <= b.max.array()).all() && active[s]->inside(at)) {
        by[static_cast<std::size_t>(p)] = static_cast<int>(s);
        return;
      }
    }
  });
  for (Index p = 0; p < x.cols(); ++p)
    if (by[static_cast<std::size_t>(p)] >= 0) c.particles.push_back(p);
  c.start.resize(3, static_cast<Index>(c.particles.size()));
  c.velocity.resize(3, static_cast<Index>(c.particles.size()));
  for (std::size_t k = 0; k < c.particles.size(); ++k) {
    c.start.col(static_cast<Index>(k)) = x.col(c.particles[k]);
    c.velocity.col(static_cast<Index>(k)) = active[static_cast<std::size_t>(by[static_cast<std::size_t>(c.particles[k])])]->velocity;
  }
  return c;
}

void exchange_liquid(CutCellSimulator& state, Real dt, const Carried& carried, ParticlePaths& paths) {
  if (!state.liquid) return;
  fluid::Liquid& l = *state.liquid;
  LiquidFlows& flows = state.flows;
  l.wall_inflow.clear();
  if (!flows.any(l.open)) return;
  const Real t = state.time;
  const Vec3 lo = l.grid.origin, hi = l.grid.max();
  for (std::size_t k = 0; k < carried.particles.size(); ++k) {
    const Vec3 x = carried.start.col(static_cast<Index>(k)) + dt * carried.velocity.col(static_cast<Index>(k));
    l.particles.col(carried.particles[k]) = x.cwiseMax(lo).cwiseMin(hi);
  }
  std::vector<const LiquidFlows::Zone*> drains;
  for (const LiquidFlows::Zone& d : flows.drains)
    if (d.active(t)) drains.push_back(&d);
  const bool open = std::find(l.open.begin(), l.open.end(), true) != l.open.end();
  std::vector<Index> moved;
  if (open || !drains.empty()) {
    const Index before = l.particles.cols();
    moved = fluid::remove_particles(l.particles, [&](const Vec3& x) {
      if (open && fluid::beyond_open_sides(l.grid, l.open, x)) return true;
      return std::any_of(drains.begin(), drains.end(), [&](const LiquidFlows::Zone* d) { return d->inside(x); });
    });
    flows.removed += static_cast<Real>(before - l.particles.cols()) * l.particle_volume;
    if (l.particles.cols() == before) moved.clear();
  }
  const Index kept = l.particles.cols();
  for (std::size_t s = 0; s < flows.sources.size(); ++s) {
    const LiquidFlows::Zone& z = flows.sources[s];
    if (!z.active(t)) continue;
    const Index added = fluid::fill_region(l, z.inside, z.bounds, state.scene.fluid.particles_per_cell,
                                           fill_key(state.scene.fluid.seed, s, t), z.velocity);
    flows.added += static_cast<Real>(added) * l.particle_volume;
    fluid::set_face_velocity(l, z.inside, z.bounds, z.velocity, state.scene.fluid.particles_per_cell);
  }
  if (moved.empty() && l.particles.cols() == kept) return;
  follow_particles(paths, moved, l.particles);
  // Stage 4 recomputes the particles' reach beside thin walls for the new set.
  l.reach.particles.clear();
}

}  // namespace fsicut::sim
