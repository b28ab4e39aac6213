#include "lib/sim/from_scene.hpp"

#include <algorithm>
#include <cmath>

#include "lib/core/error.hpp"

namespace fsicut::sim {
namespace {

fluid::Region shape_region(const scene::Shape& s) {
  switch (s.type) {
    case scene::Shape::Type::box: {
      const Vec3 lo = s.min, hi = s.max;
      return [lo, hi](const Vec3& x) {
        return (x.array() >= lo.array()).all() && (x.array() <= hi.array()).all();
      };
    }
    case scene::Shape::Type::sphere: {
      const Vec3 c = s.center;
      const Real r2 = s.radius * s.radius;
      return [c, r2](const Vec3& x) { return (x - c).squaredNorm() <= r2; };
    }
    case scene::Shape::Type::obj: break;
  }
  return {};
}

}  // namespace

grid::MacGrid make_grid(const scene::Grid& g) {
  grid::MacGrid m;
  m.resolution = g.resolution;
  m.origin = g.origin;
  m.dx = g.cell_size;
  return m;
}

linsolve::Preconditioner preconditioner(scene::Coupling::Preconditioner kind) {
  switch (kind) {
    case scene::Coupling::Preconditioner::multigrid: return linsolve::Preconditioner::multigrid;
    case scene::Coupling::Preconditioner::mic: return linsolve::Preconditioner::modified_incomplete_cholesky;
    case scene::Coupling::Preconditioner::ic: return linsolve::Preconditioner::incomplete_cholesky;
  }
  return linsolve::Preconditioner::modified_incomplete_cholesky;
}

fluid::ProjectionSettings projection_settings(const scene::Coupling& c) {
  fluid::ProjectionSettings s;
  s.tolerance = c.tolerance;
  s.max_iterations = c.max_iterations;
  s.allow_unconverged = c.allow_unconverged;
  s.preconditioner = preconditioner(c.preconditioner);
  return s;
}

coupling::CoupledSettings coupled_settings(const scene::Coupling& c) {
  coupling::CoupledSettings s;
  s.sigma = c.sigma;
  s.alpha = c.alpha_auto ? std::optional<Real>() : std::optional<Real>(c.alpha);
  s.tolerance = c.tolerance;
  s.max_iterations = c.max_iterations;
  s.preconditioner = preconditioner(c.preconditioner);
  return s;
}

Real velocity_bound(const scene::Scene& scene) {
  Real v0 = 0, elastic = 0;
  for (const scene::Shape& r : scene.fluid.regions) v0 = std::max(v0, r.velocity.norm());
  for (const scene::Shape& r : scene.fluid.sources) v0 = std::max(v0, r.velocity.norm());
  for (const scene::SolidDesc& b : scene.solids) {
    v0 = std::max(v0, b.velocity.norm());
    const Real bulk = b.youngs_modulus / (3 * (1 - 2 * b.poisson_ratio));
    elastic = std::max(elastic, 3 * std::abs(1 - b.initial_scale) * std::sqrt(bulk / b.density));
  }
  // Prescribed motions put energy in: the fastest moving wall.
  const Real diagonal = (scene.grid.max() - scene.grid.origin).norm();
  const auto moving = [&](const scene::Shape& s) {
    if (!s.motion) return;
    const Real reach = s.type == scene::Shape::Type::box      ? 0.5 * (s.max - s.min).norm()
                       : s.type == scene::Shape::Type::sphere ? s.radius
                                                              : diagonal;
    const Vec3 centre = s.type == scene::Shape::Type::box ? Vec3(0.5 * (s.min + s.max)) : s.center;
    v0 = std::max(v0, scene::speed_bound(*s.motion, centre, reach));
  };
  for (const scene::Shape& s : scene.obstacles) moving(s);
  for (const scene::SolidDesc& b : scene.solids)
    for (const scene::Shape& s : b.pinned) moving(s);
  Real accel = scene.gravity.norm(), smoke = 1;
  for (const scene::SmokeSource& s : scene.fluid.smoke.sources) {
    v0 = std::max(v0, s.velocity.norm());
    smoke = std::max(smoke, s.density);
  }
  accel += std::abs(scene.fluid.smoke.buoyancy) * smoke;
  const Real fall = 2 * accel * (scene.grid.max() - scene.grid.origin).norm();
  const Real cell_per_frame = scene.grid.cell_size * scene.time.fps;
  return VELOCITY_MARGIN * std::sqrt(v0 * v0 + fall + elastic * elastic + cell_per_frame * cell_per_frame);
}

coupling::PartitionedSettings partitioned_settings(const scene::Scene& scene, Real dt) {
  const scene::Coupling& c = scene.coupling;
  const Real dx = scene.grid.cell_size;
  coupling::PartitionedSettings s;
  s.method = c.scheme == scene::Coupling::Scheme::xpm ? coupling::PartitionedSettings::Method::xpm
                                                      : coupling::PartitionedSettings::Method::relaxed;
  s.relaxation = c.partitioned.relaxation;
  s.tolerance = c.partitioned.tolerance * dx / dt;  // cells per substep -> m/s
  s.max_iterations = c.partitioned.max_iterations;
  s.velocity_bound = velocity_bound(scene);
  return s;
}

fluid::Liquid make_liquid(const scene::Scene& scene, levelset::StaticSolid solid,
                          const std::vector<fluid::Region>& obj_regions, const fluid::Region& bodies,
                          const grid::Array3<char>& exact) {
  fluid::Liquid l = fluid::make_liquid(make_grid(scene.grid), scene.fluid.density, scene.gravity, std::move(solid));
  l.projection = projection_settings(scene.coupling);
  l.viscosity = scene.fluid.viscosity;
  l.open = scene.grid.open;
  // What each particle stands for, also when only sources bring liquid.
  l.particle_volume = std::pow(l.grid.dx, 3) / scene.fluid.particles_per_cell;
  l.extrapolation_layers =
      std::max(fluid::DEFAULT_EXTRAPOLATION_LAYERS, static_cast<int>(std::ceil(scene.time.cfl)) + 2);
  std::size_t next_obj = 0;
  std::vector<fluid::Region> earlier;
  for (const auto& r : scene.fluid.regions) {
    fluid::Region region = shape_region(r);
    if (!region) {
      if (next_obj >= obj_regions.size())
        throw SimulationError(r.pointer + ": obj fluid regions need a membership test from the mesh");
      region = obj_regions[next_obj++];
    }
    // Where regions overlap, the first one seeds: no doubled particle density.
    const fluid::Region own = [region, earlier, &bodies](const Vec3& x) {
      if (!region(x) || (bodies && bodies(x))) return false;
      for (const auto& e : earlier)
        if (e(x)) return false;
      return true;
    };
    fluid::add_liquid(l, own, r.velocity, scene.fluid.particles_per_cell, scene.fluid.seed, exact);
    earlier.push_back(region);
  }
  fluid::initialize(l);
  return l;
}

}  // namespace fsicut::sim
