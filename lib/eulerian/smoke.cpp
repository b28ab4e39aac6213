#include "lib/eulerian/smoke.hpp"

#include <algorithm>
#include <cmath>

#include "lib/core/parallel.hpp"

namespace fsicut::eulerian {

namespace {

constexpr Index MIN_PARALLEL_CELLS = 4096;

Vec3 cell_centre(const grid::MacGrid& grid, const Vec3i& c) {
  return grid.origin + grid.dx * (c.cast<Real>() + Vec3::Constant(0.5));
}

Vec3 node_position(const grid::MacGrid& grid, Index n) {
  return grid.origin + grid.dx * node_coord(grid, n).cast<Real>();
}

bool in_box(const SmokeSource& s, const Vec3& x) {
  return (x.array() >= s.lower.array()).all() && (x.array() <= s.upper.array()).all();
}

// The smoke density at node n: the mean of the cells around it.
Real node_density(const grid::Array3<Real>& density, const Vec3i& node) {
  Real sum = 0;
  int count = 0;
  for (int q = 0; q < CORNERS; ++q) {
    const Vec3i c = node - corner_offset(q);
    if (!density.inside(c.x(), c.y(), c.z())) continue;
    sum += density(c);
    ++count;
  }
  return count > 0 ? sum / count : 0;
}

// Trilinear interpolation of a cell-centred field at x [m], clamped.
Real sample_cells(const grid::MacGrid& grid, const grid::Array3<Real>& f, const Vec3& x) {
  Vec3 s = (x - grid.origin) / grid.dx - Vec3::Constant(0.5);
  Vec3i i0;
  Vec3 w;
  for (int a = 0; a < 3; ++a) {
    const Real hi = grid.resolution[a] - 1;
    s[a] = std::clamp(s[a], Real(0), hi);
    i0[a] = std::min(static_cast<int>(std::floor(s[a])), std::max(grid.resolution[a] - 2, 0));
    w[a] = s[a] - i0[a];
  }
  Real out = 0;
  for (int q = 0; q < CORNERS; ++q) {
    const Vec3i o = corner_offset(q);
    Real weight = 1;
    Vec3i c;
    for (int a = 0; a < 3; ++a) {
      weight *= o[a] ? w[a] : 1 - w[a];
      c[a] = std::min(i0[a] + o[a], grid.resolution[a] - 1);
    }
    out += weight * f(c);
  }
  return out;
}

// The curl of the nodal field v at every node, central differences (one-sided
// at the box) [1/s].
NodeField curl(const grid::MacGrid& grid, const NodeField& v) {
  NodeField w = zero_field(grid);
  parallel_for_from(MIN_PARALLEL_CELLS, node_count(grid), [&](Index n) {
    const Vec3i c = node_coord(grid, n);
    Mat3 d;  // d(a, b) = dv_a / dx_b
    for (int b = 0; b < 3; ++b) {
      Vec3i lo = c, hi = c;
      lo[b] = std::max(c[b] - 1, 0);
      hi[b] = std::min(c[b] + 1, grid.resolution[b]);
      const Real h = (hi[b] - lo[b]) * grid.dx;
      d.col(b) = (node_value(v, node_index(grid, hi)) - node_value(v, node_index(grid, lo))) / h;
    }
    w.segment<3>(3 * n) = Vec3(d(2, 1) - d(1, 2), d(0, 2) - d(2, 0), d(1, 0) - d(0, 1));
  });
  return w;
}

}  // namespace

Smoke make_smoke(const grid::MacGrid& grid, Real fluid_density) {
  Smoke s;
  s.fluid_density = fluid_density;
  s.density.resize(grid.cell_shape(), 0.0);
  s.velocity = zero_field(grid);
  return s;
}

std::vector<Real> fluid_masses(const grid::MacGrid& grid, const std::vector<Real>& solid_fraction,
                               Real fluid_density) {
  std::vector<Real> m(static_cast<std::size_t>(node_count(grid)), 0.0);
  const Real share = fluid_density * GAUSS_WEIGHT * grid.dx * grid.dx * grid.dx;
  std::array<std::array<Real, CORNERS>, GAUSS_POINTS> weights;
  for (int g = 0; g < GAUSS_POINTS; ++g) weights[g] = shape_values(gauss_point(g));
  for (int k = 0; k < grid.resolution.z(); ++k)
    for (int j = 0; j < grid.resolution.y(); ++j)
      for (int i = 0; i < grid.resolution.x(); ++i) {
        const Vec3i c(i, j, k);
        const Index base = GAUSS_POINTS * cell_index(grid, c);
        for (int g = 0; g < GAUSS_POINTS; ++g) {
          const Real fluid = share * (1 - std::min(Real(1), solid_fraction[base + g]));
          if (fluid <= 0) continue;
          for (int q = 0; q < CORNERS; ++q) m[corner_node(grid, c, q)] += fluid * weights[g][q];
        }
      }
  return m;
}

namespace {
bool acting(const SmokeSource& s, Real t) { return t >= s.from && t < s.until; }
}  // namespace

std::vector<char> inflow_nodes(const grid::MacGrid& grid, const Smoke& smoke, Real t, NodeField& velocity) {
  std::vector<char> prescribed(static_cast<std::size_t>(node_count(grid)), 0);
  for (const SmokeSource& s : smoke.sources) {
    if (!s.inflow || !acting(s, t)) continue;
    for (Index n = 0; n < node_count(grid); ++n)
      if (in_box(s, node_position(grid, n))) {
        prescribed[n] = 1;
        velocity.segment<3>(3 * n) = s.velocity;
      }
  }
  return prescribed;
}

void apply_sources(const grid::MacGrid& grid, Smoke& smoke, Real t) {
  for (const SmokeSource& s : smoke.sources)
    for (Index c = 0; c < smoke.density.count() && acting(s, t); ++c)
      if (in_box(s, cell_centre(grid, smoke.density.coord(c)))) smoke.density[c] = s.density;
}

NodeField buoyancy_force(const grid::MacGrid& grid, const Smoke& smoke, const std::vector<Real>& fluid_mass,
                         const Vec3& up) {
  NodeField f = zero_field(grid);
  if (smoke.buoyancy == 0) return f;
  for (Index n = 0; n < node_count(grid); ++n) {
    if (!(fluid_mass[n] > 0)) continue;
    const Real s = node_density(smoke.density, node_coord(grid, n));
    f.segment<3>(3 * n) = fluid_mass[n] * smoke.buoyancy * s * up;
  }
  return f;
}

NodeField vorticity_confinement_force(const grid::MacGrid& grid, const NodeField& v,
                                      const std::vector<Real>& fluid_mass, Real epsilon) {
  NodeField f = zero_field(grid);
  if (epsilon == 0) return f;
  const NodeField w = curl(grid, v);
  std::vector<Real> magnitude(static_cast<std::size_t>(node_count(grid)));
  for (Index n = 0; n < node_count(grid); ++n) magnitude[n] = node_value(w, n).norm();
  parallel_for_from(MIN_PARALLEL_CELLS, node_count(grid), [&](Index n) {
    if (!(fluid_mass[n] > 0)) return;
    const Vec3i c = node_coord(grid, n);
    Vec3 gradient;
    for (int b = 0; b < 3; ++b) {
      Vec3i lo = c, hi = c;
      lo[b] = std::max(c[b] - 1, 0);
      hi[b] = std::min(c[b] + 1, grid.resolution[b]);
      gradient[b] = (magnitude[node_index(grid, hi)] - magnitude[node_index(grid, lo)]) / ((hi[b] - lo[b]) * grid.dx);
    }
    const Real length = gradient.norm();
    // Below this |grad |omega|| [1/(s m)] the direction N is noise.
    if (!(length > 1e-12 / grid.dx)) return;
    f.segment<3>(3 * n) = fluid_mass[n] * epsilon * grid.dx * (gradient / length).cross(node_value(w, n));
  });
  return f;
}

void advect_density(const grid::MacGrid& grid, grid::Array3<Real>& density, const NodeField& velocity, Real dt) {
  grid::Array3<Real> out = density;
  parallel_for_from(MIN_PARALLEL_CELLS, density.count(), [&](Index c) {
    const Vec3 x = cell_centre(grid, density.coord(c));
    const Vec3 mid = x - 0.5 * dt * interpolate(grid, velocity, x);
    const Vec3 back = x - dt * interpolate(grid, velocity, mid);
    out[c] = sample_cells(grid, density, back);
  });
  density = std::move(out);
}

Real smoke_amount(const grid::MacGrid& grid, const grid::Array3<Real>& density) {
  Real sum = 0;
  for (Index c = 0; c < density.count(); ++c) sum += density[c];
  return sum * grid.dx * grid.dx * grid.dx;
}

}  // namespace fsicut::eulerian
