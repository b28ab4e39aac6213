#include "lib/eulerian/particles.hpp"

#include <random>

namespace fsicut::eulerian {

namespace {

// A uniform double in [0, 1) from the top 53 bits: unlike
// std::uniform_real_distribution, the same on every standard library.
Real unit_random(std::mt19937_64& rng) { return static_cast<Real>(rng() >> 11) * 0x1.0p-53; }

Vec3 jittered(std::mt19937_64& rng, Real jitter) {
  if (jitter == 0) return Vec3::Constant(0.5);
  Vec3 out;
  for (int a = 0; a < 3; ++a) out[a] = 0.5 + jitter * (unit_random(rng) - 0.5);
  return out;
}

// Whether any corner of `cell` holds the solid's u and v: only there can the
// reference map say the cell holds material.
bool touches_solid(const EulerianSolid& solid, const Vec3i& cell) {
  for (int q = 0; q < CORNERS; ++q)
    if (solid.valid[static_cast<std::size_t>(corner_node(solid.grid, cell, q))]) return true;
  return false;
}

}  // namespace

Particles seed_particles(const EulerianSolid& solid, const SeedSettings& settings) {
  const grid::MacGrid& g = solid.grid;
  const int k = settings.per_axis;
  const Real sub = g.dx / k;
  const Real mass = solid.density * sub * sub * sub;
  std::mt19937_64 rng(settings.seed);
  Particles out;
  for (int cz = 0; cz < g.resolution.z(); ++cz)
    for (int cy = 0; cy < g.resolution.y(); ++cy)
      for (int cx = 0; cx < g.resolution.x(); ++cx)
        for (int s = 0, touches = -1; s < k * k * k; ++s) {
          const Vec3 local(s % k, (s / k) % k, s / (k * k));
          // Drawn for every sub-cell, inside or not, so a particle's jitter
          // does not depend on where the solid is.
          const Vec3 offset = jittered(rng, settings.jitter);
          if (touches < 0) touches = touches_solid(solid, Vec3i(cx, cy, cz));
          if (!touches) continue;
          const Vec3 x = g.origin + g.dx * Vec3(cx, cy, cz) + sub * (local + offset);
          if (material_distance(solid.shape, x - interpolate(g, solid.u, x)) >= 0) continue;
          out.position.push_back(x);
          out.velocity.push_back(interpolate(g, solid.v, x));
          out.mass.push_back(mass);
        }
  return out;
}

void flip_update(Particles& particles, const grid::MacGrid& grid, const NodeField& v_old, const NodeField& v_new,
                 Real flip_ratio) {
  const NodeField change = v_new - v_old;
  for (Index p = 0; p < particles.size(); ++p) {
    const Vec3& x = particles.position[p];
    Vec3& v = particles.velocity[p];
    v = flip_ratio * (v + interpolate(grid, change, x)) + (1 - flip_ratio) * interpolate(grid, v_new, x);
  }
}

Rasterized rasterize(const Particles& particles, const grid::MacGrid& grid) {
  Rasterized out{zero_field(grid), Vector::Zero(node_count(grid))};
  for (Index p = 0; p < particles.size(); ++p) {
    Vec3 xi;
    const Vec3i cell = locate(grid, particles.position[p], xi);
    const std::array<Real, CORNERS> n = shape_values(xi);
    for (int q = 0; q < CORNERS; ++q) {
      const Index node = corner_node(grid, cell, q);
      const Real w = particles.mass[p] * n[q];
      out.mass[node] += w;
      out.velocity.segment<3>(3 * node) += w * particles.velocity[p];
    }
  }
  for (Index node = 0; node < out.mass.size(); ++node)
    if (out.mass[node] > 0) out.velocity.segment<3>(3 * node) /= out.mass[node];
  return out;
}

void advect_particles(Particles& particles, Real dt) {
  for (Index p = 0; p < particles.size(); ++p) particles.position[p] += dt * particles.velocity[p];
}

Vec3 momentum(const Particles& particles) {
  Vec3 out = Vec3::Zero();
  for (Index p = 0; p < particles.size(); ++p) out += particles.mass[p] * particles.velocity[p];
  return out;
}

Real kinetic_energy(const Particles& particles) {
  Real out = 0;
  for (Index p = 0; p < particles.size(); ++p) out += 0.5 * particles.mass[p] * particles.velocity[p].squaredNorm();
  return out;
}

}  // namespace fsicut::eulerian
