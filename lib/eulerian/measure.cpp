#include "lib/eulerian/measure.hpp"

#include <algorithm>

#include "lib/eulerian/deformation.hpp"
#include "lib/eulerian/elasticity.hpp"

namespace fsicut::eulerian {

SolidMeasure measure_solid(const EulerianSolid& solid) {
  const grid::MacGrid& g = solid.grid;
  const ElasticState state = evaluate_elasticity(solid);
  const std::vector<Real> mass = lumped_masses(g, state, solid.density);
  SolidMeasure m;
  m.report.volume = solid_volume(g, state);
  m.report.elastic_energy = elastic_energy(state);
  m.report.inverted = state.inverted;
  m.report.drift = solid.material_volume > 0 ? material_volume(state) / solid.material_volume - 1 : 0;
  for (const QuadraturePoint& p : state.points) {
    const Vec3 s = signed_svd(deformation_gradient(g, solid.u, p.cell, gauss_point(p.gauss))).s;
    m.report.max_strain = std::max(m.report.max_strain, (s - Vec3::Ones()).cwiseAbs().maxCoeff());
  }
  Vec3 moment = Vec3::Zero(), momentum = Vec3::Zero();
  for (Index n = 0; n < node_count(g); ++n) {
    if (!(mass[n] > 0)) continue;
    const Vec3 v = node_value(solid.v, n);
    m.mass += mass[n];
    moment += mass[n] * (g.origin + g.dx * node_coord(g, n).cast<Real>());
    momentum += mass[n] * v;
    m.report.kinetic_energy += 0.5 * mass[n] * v.squaredNorm();
  }
  if (m.mass > 0) {
    m.centroid = moment / m.mass;
    m.mean_velocity = momentum / m.mass;
  }
  return m;
}

Real max_speed(const World& world) {
  Real speed = 0;
  for (Index n = 0; n < node_count(world.grid); ++n) speed = std::max(speed, node_value(world.velocity, n).norm());
  if (world.smoke)
    for (Index n = 0; n < node_count(world.grid); ++n)
      speed = std::max(speed, node_value(world.smoke->velocity, n).norm());
  for (const EulerianSolid& s : world.solids)
    for (Index n = 0; n < node_count(s.grid); ++n)
      if (s.valid[n]) speed = std::max(speed, node_value(s.v, n).norm());
  return speed;
}

void advect_surface(const grid::MacGrid& grid, const NodeField& v_before, const NodeField& v_after, Real dt,
                    Points& vertices) {
  for (Index i = 0; i < vertices.cols(); ++i) {
    const Vec3 x = vertices.col(i);
    const Vec3 predicted = x + dt * interpolate(grid, v_before, x);
    vertices.col(i) = x + dt * interpolate(grid, v_after, predicted);
  }
}

}  // namespace fsicut::eulerian
