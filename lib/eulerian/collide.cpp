#include "lib/eulerian/collide.hpp"

#include <algorithm>
#include <cmath>

namespace fsicut::eulerian {

namespace {

// The solid's velocity on its band: the copy where it has mass, its
// extrapolated v^n elsewhere.
NodeField as_field(const EulerianSolid& solid, const SolidVelocity& copy) {
  NodeField v = solid.v;
  for (std::size_t k = 0; k < copy.nodes.size(); ++k)
    v.segment<3>(3 * copy.nodes[k]) = copy.values.segment<3>(3 * static_cast<Index>(k));
  return v;
}

// The solid's particles at u^n carrying its new velocity.
Particles instantiate(const EulerianSolid& solid, const NodeField& velocity) {
  SeedSettings lattice;
  lattice.jitter = 0;
  Particles p = seed_particles(solid, lattice);
  for (Index i = 0; i < p.size(); ++i) p.velocity[i] = interpolate(solid.grid, velocity, p.position[i]);
  return p;
}

// Adds the splat of the particles' velocity changes to the copy's nodes.
void add_changes(const grid::MacGrid& grid, const Particles& before, const Particles& after, SolidVelocity& copy) {
  Particles change = after;
  for (Index i = 0; i < change.size(); ++i) change.velocity[i] -= before.velocity[i];
  const Rasterized r = rasterize(change, grid);
  for (std::size_t k = 0; k < copy.nodes.size(); ++k)
    if (r.mass[copy.nodes[k]] > 0)
      copy.values.segment<3>(3 * static_cast<Index>(k)) += node_value(r.velocity, copy.nodes[k]);
}

// The geometric mean, exact when a == b.
Real mix(Real a, Real b) { return a == b ? a : std::sqrt(a * b); }

}  // namespace

ContactReport collide(const std::vector<EulerianSolid>& solids, Real dt, std::vector<SolidVelocity>& copies) {
  ContactReport report;
  const auto touching = std::count_if(solids.begin(), solids.end(),
                                      [](const EulerianSolid& s) { return s.contact_stiffness > 0; });
  if (touching < 2) return report;
  std::vector<NodeField> fields;
  std::vector<Particles> particles;
  for (std::size_t l = 0; l < solids.size(); ++l) {
    fields.push_back(as_field(solids[l], copies[l]));
    particles.push_back(solids[l].contact_stiffness > 0 ? instantiate(solids[l], fields[l]) : Particles{});
  }
  for (std::size_t i = 0; i < solids.size(); ++i) {
    const Particles before = particles[i];
    const Index impulses = report.impulses;
    for (std::size_t j = 0; j < solids.size(); ++j) {
      const EulerianSolid &a = solids[i], &b = solids[j];
      const ContactSettings pair{mix(a.contact_stiffness, b.contact_stiffness),
                                 mix(a.contact_friction, b.contact_friction), a.grid.dx};
      if (j != i && pair.stiffness > 0) push_away(particles[i], a, b, fields[j], dt, pair, report);
    }
    // Only a solid whose particles were pushed has changes to splat.
    if (report.impulses > impulses) add_changes(solids[i].grid, before, particles[i], copies[i]);
  }
  return report;
}

}  // namespace fsicut::eulerian
