#include "lib/eulerian/contact.hpp"

#include <cmath>
#include <unordered_map>

namespace fsicut::eulerian {

namespace {

struct Ref {
  int solid;
  Index particle;
};

// Cube index packed into one key: 21 bits per axis, offset so negative
// indices pack too (positions within +-2^20 h of the origin).
std::int64_t cube_key(const Vec3i& c) {
  constexpr std::int64_t OFFSET = std::int64_t(1) << 20;
  constexpr std::int64_t MASK = (std::int64_t(1) << 21) - 1;
  return ((c.x() + OFFSET) & MASK) | (((c.y() + OFFSET) & MASK) << 21) | (((c.z() + OFFSET) & MASK) << 42);
}

Vec3i cube_of(const Vec3& x, Real h) {
  return Vec3i(static_cast<int>(std::floor(x.x() / h)), static_cast<int>(std::floor(x.y() / h)),
               static_cast<int>(std::floor(x.z() / h)));
}

using Bins = std::unordered_map<std::int64_t, std::vector<Ref>>;

Bins bin_particles(const std::vector<Particles*>& solids, Real h) {
  Bins bins;
  for (int s = 0; s < static_cast<int>(solids.size()); ++s)
    for (Index p = 0; p < solids[s]->size(); ++p) bins[cube_key(cube_of(solids[s]->position[p], h))].push_back({s, p});
  return bins;
}

// Eqs. 14-15 on one pair (i of solid a, j of solid b); returns whether an
// impulse was applied.
bool resolve_pair(Particles& a, Index i, Particles& b, Index j, Real dt, const ContactSettings& settings,
                  ContactReport& report) {
  const Vec3 gap = a.position[i] - b.position[j];
  const Real dist = gap.norm();
  const Real d = settings.distance - dist;
  if (d <= 0) return false;
  ++report.pairs;
  report.max_overlap = std::max(report.max_overlap, d);
  // Coincident particles have no normal; the neighbouring pairs push them apart.
  if (dist == 0) return false;
  const Vec3 n = gap / dist;
  const Real m = a.mass[i] * b.mass[j] / (a.mass[i] + b.mass[j]);
  const Vec3 rel = a.velocity[i] - b.velocity[j];
  const Real v_n = rel.dot(n);
  const Real r = std::min(dt * settings.stiffness * d, m * (0.1 * d / dt - v_n));
  if (!(r > 0)) return false;
  Vec3 impulse = r * n;
  const Vec3 v_t = rel - v_n * n;
  const Real slide = v_t.norm();
  if (slide > 0 && settings.friction > 0) {
    const Real scale = std::max(1 - settings.friction * (r / m) / slide, Real(0));
    impulse += m * (scale - 1) * v_t;
  }
  a.velocity[i] += impulse / a.mass[i];
  b.velocity[j] -= impulse / b.mass[j];
  ++report.impulses;
  return true;
}

}  // namespace

ContactReport resolve_contacts(const std::vector<Particles*>& solids, Real dt, const ContactSettings& settings) {
  ContactReport report;
  if (solids.size() < 2 || settings.distance <= 0 || settings.stiffness <= 0) return report;
  const Real h = settings.distance;
  const Bins bins = bin_particles(solids, h);
  for (int s = 0; s < static_cast<int>(solids.size()); ++s)
    for (Index p = 0; p < solids[s]->size(); ++p) {
      const Vec3i c = cube_of(solids[s]->position[p], h);
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const auto it = bins.find(cube_key(c + Vec3i(dx, dy, dz)));
            if (it == bins.end()) continue;
            // Each pair once: only partners of a later solid.
            for (const Ref& other : it->second)
              if (other.solid > s)
                resolve_pair(*solids[s], p, *solids[other.solid], other.particle, dt, settings, report);
          }
    }
  return report;
}

}  // namespace fsicut::eulerian
