#include "lib/fluid/liquid.hpp"

#include <algorithm>
#include <cmath>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/fluid/flows.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/fluid/viscosity.hpp"
#include "lib/levelset/liquid_sdf.hpp"

namespace fsicut::fluid {
namespace {

// Faces next to a liquid cell (liquid SDF < 0 on either side) with an open
// fraction: the faces whose velocity is known before the first projection.
void flag_liquid_faces(Liquid& l) {
  for (int a = 0; a < 3; ++a) {
    auto& v = l.valid[a];
    v.resize(l.grid.face_shape(a), 0);
    const int n_a = l.grid.resolution[a];
    parallel_for(0, v.count(), [&](Index idx) {
      const Vec3i f = v.coord(idx);
      v[idx] = 0;
      if (f[a] == 0 || f[a] == n_a || !(l.fractions[a][idx] > 0)) return;
      Vec3i left = f;
      left[a] -= 1;
      if (l.liquid_phi(left) < 0 || l.liquid_phi(f) < 0) v[idx] = 1;
    });
  }
}

}  // namespace

Liquid make_liquid(const grid::MacGrid& grid, Real density, const Vec3& gravity,
                   levelset::StaticSolid solid) {
  Liquid l;
  l.grid = grid;
  l.density = density;
  l.gravity = gravity;
  l.particles.resize(3, 0);
  l.particle_radius = levelset::particle_radius(grid);
  l.velocity = grid::make_velocity(grid);
  l.scratch = grid::make_velocity(grid);
  l.pressure.resize(grid.cell_shape(), 0);
  l.liquid_phi.resize(grid.cell_shape(), 0);
  for (int a = 0; a < 3; ++a) l.valid[a].resize(grid.face_shape(a), 0);
  l.solid = std::move(solid);
  refresh_solid(l);
  return l;
}

void add_liquid(Liquid& l, const Region& region, const Vec3& velocity, int per_cell,
                unsigned seed, const grid::Array3<char>& exact) {
  const levelset::StaticSolid& solid = l.solid;
  const Region inside = [&](const Vec3& x) { return region(x) && (!solid || solid(x) > 0); };
  const Points added = seed_particles(l.grid, inside, per_cell, seed, exact);
  Points all(3, l.particles.cols() + added.cols());
  all << l.particles, added;
  l.particles = std::move(all);
  l.particle_volume = std::pow(l.grid.dx, 3) / per_cell;
  for (int a = 0; a < 3; ++a) {
    const grid::Sampling s = grid::face_sampling(a);
    auto& ua = l.velocity[a];
    parallel_for(0, ua.count(), [&](Index idx) {
      const Vec3i f = ua.coord(idx);
      if (region(l.grid.position(s, f.x(), f.y(), f.z()))) ua[idx] = velocity[a];
    });
  }
}

void initialize(Liquid& l, const SolidVelocity& solid_velocity) {
  update_distance_fields(l);
  flag_liquid_faces(l);
  extrapolate_and_constrain(l, solid_velocity);
}

void move_particles(Liquid& l, Real dt, const RegionOf& region_of) {
  const bool reached = l.reach.particles.size() == static_cast<std::size_t>(l.particles.cols());
  const SplitFlow flow{&l.split, &l.pieces, region_of};
  advect_particles(l.grid, l.velocity, dt, l.particles, reached ? l.reach.particles : std::vector<std::uint32_t>{},
                   flow.active() ? &flow : nullptr);
}

void advect_faces(Liquid& l, Real dt) { advect_velocity(l.grid, dt, l.valid, l.velocity, l.scratch, l.reach.cells); }

void advect(Liquid& l, Real dt, const RegionOf& region_of) {
  move_particles(l, dt, region_of);
  advect_faces(l, dt);
}

void apply_gravity(Liquid& l, Real dt) { fluid::apply_gravity(l.velocity, l.gravity, dt); }

void refresh_solid(Liquid& l) {
  l.static_phi = levelset::sample_solid_at_nodes(l.grid, l.solid);
  levelset::resolve_surface_ties(l.grid, l.static_phi);
  levelset::extend_through_domain_walls(l.static_phi);
  l.solid_phi = l.static_phi;
  cutcell::compute_face_fractions(l.grid, l.solid_phi, l.fractions);
}

void update_distance_fields(Liquid& l) {
  if (l.solid_phi.count() == 0) refresh_solid(l);
  levelset::liquid_phi_from_particles(l.grid, l.particles, l.particle_volume, l.particle_radius,
                                      l.solid_phi, l.liquid_phi, l.reach);
  levelset::extend_liquid_into_solid(l.grid, l.solid_phi, l.fractions, l.liquid_phi);
  open_layers_to_air(l.grid, l.open, l.liquid_phi);
}

linsolve::Report project(Liquid& l, Real dt, const grid::MacVelocity* wall) {
  return project_pressure(l.grid, l.liquid_phi, l.fractions, dt, l.density, l.projection, l.velocity,
                          l.pressure, l.valid, l.split, &l.region_pressure, &l.pieces, wall, l.wall_inflow);
}

linsolve::Report apply_viscosity(Liquid& l, Real dt, const SolidVelocity& solid_velocity) {
  if (!(l.viscosity > 0)) return linsolve::nothing_to_solve();
  const LiquidFractions fractions = liquid_fractions(l.grid, l.liquid_phi, l.solid_phi, l.open);
  const ViscositySystem system = assemble_viscosity(l.grid, fractions, l.fractions, l.solid_phi, l.viscosity,
                                                    l.density, dt, solid_velocity, l.velocity, l.open);
  linsolve::PcgSettings settings;
  settings.tolerance = l.projection.tolerance;
  settings.max_iterations = l.projection.max_iterations;
  settings.preconditioner = linsolve::Preconditioner::incomplete_cholesky;
  return solve_viscosity(system, settings, l.velocity);
}

linsolve::Report reproject(Liquid& l, Real dt, const grid::MacVelocity* wall) {
  const grid::Array3<Real> first = l.pressure;
  const std::vector<Real> first_regions = l.region_pressure;
  // The correction starts from zero: the first pressure as a warm start
  // would be the whole answer off.
  l.pressure.fill(0);
  std::fill(l.region_pressure.begin(), l.region_pressure.end(), Real(0));
  const linsolve::Report report = project(l, dt, wall);
  for (Index n = 0; n < l.pressure.count(); ++n) l.pressure[n] += first[n];
  for (std::size_t n = 0; n < std::min(first_regions.size(), l.region_pressure.size()); ++n)
    l.region_pressure[n] += first_regions[n];
  return report;
}

void extrapolate_and_constrain(Liquid& l, const SolidVelocity& solid_velocity) {
  release_nearly_closed(l.fractions, l.valid);
  release_nearly_closed(l.fractions, NEARLY_CLOSED_FRACTION, l.pieces);
  extrapolate_velocity(l.velocity, l.valid, l.extrapolation_layers, l.reach.cells);
  constrain_velocity(l.grid, l.solid_phi, l.fractions, l.valid, l.velocity, l.scratch, solid_velocity,
                     l.reach.cells);
  push_particles_out(l.grid, l.solid_phi, l.particles);
}

Real max_speed(const Liquid& l) {
  Vec3 m = Vec3::Zero();
  for (int a = 0; a < 3; ++a)
    for (Real v : l.velocity[a].data()) m[a] = std::max(m[a], std::abs(v));
  return m.cwiseMax(max_piece_speed(l.pieces)).norm();
}

Real liquid_volume(const Liquid& l) {
  return levelset::liquid_volume_from_particles(l.grid, l.particles, l.particle_volume, l.solid_phi, l.reach);
}

Vec3 particle_centroid(const Liquid& l) {
  if (l.particles.cols() == 0) return Vec3::Zero();
  return l.particles.rowwise().sum() / static_cast<Real>(l.particles.cols());
}

}  // namespace fsicut::fluid
