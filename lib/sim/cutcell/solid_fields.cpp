#include "lib/sim/cutcell/solid_fields.hpp"

#include <algorithm>
#include <limits>

#include "lib/core/parallel.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/mesh/barycentric.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/sim/cutcell/moving.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {

SolidSurfaces make_surfaces(const std::vector<solid::Body>& bodies, std::vector<levelset::MeshDistance> obstacles) {
  SolidSurfaces s;
  for (const solid::Body& b : bodies) s.meshes.emplace_back(b.x, b.mesh.boundary);
  for (levelset::MeshDistance& d : obstacles) s.meshes.push_back(std::move(d));
  s.patches.resize(bodies.size());
  return s;
}

void update_solid_fields(CutCellSimulator& state) {
  fluid::Liquid& liquid = *state.liquid;
  SolidSurfaces& surfaces = state.surfaces;
  const grid::MacGrid& grid = liquid.grid;
  // Obstacles holding still (a keyframed motion before its first keyframe or
  // after its last) leave every field as the last call computed it.
  if (surfaces.fixed || (state.solids.empty() && !state.motions.obstacles.empty() && !obstacles_moved(state))) {
    liquid.reach.particles =
        cutcell::particle_reach(grid, liquid.solid_phi, surfaces.meshes, liquid.reach, liquid.particles);
    return;
  }
  if (liquid.static_phi.count() == 0) {
    fluid::refresh_solid(liquid);
    surfaces.static_fractions = {};
  }
  if (surfaces.static_fractions[0].count() == 0)
    cutcell::compute_face_fractions(grid, liquid.static_phi, surfaces.static_fractions);
  liquid.solid_phi = liquid.static_phi;
  liquid.fractions = surfaces.static_fractions;
  const Real band = SOLID_BAND_CELLS * grid.dx;
  if (!state.motions.obstacles.empty()) add_moving_obstacles(state);
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    const solid::Body& body = state.solids[b];
    surfaces.meshes[b].set_vertices(body.x);
    levelset::sample_mesh_sdf_at_nodes(grid, surfaces.meshes[b], band, surfaces.phi);
    levelset::resolve_surface_ties(grid, surfaces.phi);
    levelset::extend_through_domain_walls(surfaces.phi);
    std::vector<Real>& phi = liquid.solid_phi.data();
    const std::vector<Real>& body_phi = surfaces.phi.data();
    parallel_for(0, static_cast<Index>(phi.size()), [&](Index i) { phi[i] = std::min(phi[i], body_phi[i]); });
    cutcell::clip_surface(grid, body.x, body.mesh.boundary, surfaces.patches[b]);
  }
  // Faces away from every body keep their static fractions: there each body's
  // distance is +band (sample_mesh_sdf_at_nodes), which changes no face's
  // fraction (a face whose static corners differ in sign has them within
  // sqrt(2) dx of the surface, well inside the band). Only the faces around
  // each body's bounding box, widened by the band and a node, are recomputed.
  for (const solid::Body& body : state.solids) {
    if (body.num_nodes() == 0) continue;
    // Clamped before the cast: a body may have left the grid far behind.
    const Vec3 limit = grid.resolution.cast<Real>().array() + 2;
    const auto node = [&](const Vec3& x, Real widen) {
      const Vec3 at = ((x - grid.origin) / grid.dx).array() + widen;
      return Vec3i(at.cwiseMax(Vec3::Constant(-2)).cwiseMin(limit).array().floor().cast<int>());
    };
    cutcell::update_face_fractions(grid, liquid.solid_phi, node(body.x.rowwise().minCoeff(), -SOLID_BAND_CELLS - 1),
                                   node(body.x.rowwise().maxCoeff(), SOLID_BAND_CELLS + 2), liquid.fractions);
  }
  grid::Array3<char> thin_cells;
  cutcell::close_thin_solid_faces(grid, liquid.solid_phi, surfaces.meshes, liquid.fractions, thin_cells);
  liquid.split = cutcell::split_cells(grid, liquid.solid_phi, surfaces.meshes, thin_cells, liquid.fractions);
  liquid.reach = cutcell::neighbour_reach(grid, liquid.solid_phi, surfaces.meshes, thin_cells, liquid.particles);
  surfaces.fixed = state.solids.empty() && state.motions.obstacles.empty();
}

fluid::SolidVelocity solid_velocity(const CutCellSimulator& state) {
  if (state.solids.empty() && state.motions.obstacles.empty()) return {};
  return [&state](const Vec3& x) -> Vec3 {
    const Real band = SOLID_BAND_CELLS * state.scene.grid.cell_size;
    Real best = std::numeric_limits<Real>::infinity();
    Vec3 v = Vec3::Zero();
    // A moving obstacle's velocity where it is the nearest solid (bodies are tested against its distance).
    if (!state.motions.obstacles.empty()) moving_obstacle_velocity(state, x, band, v, &best);
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      const levelset::MeshDistance& d = state.surfaces.meshes[b];
      const levelset::MeshHit hit = d.closest(x, band);
      if (!hit.found || hit.distance >= best) continue;
      best = hit.distance;
      const solid::Body& body = state.solids[b];
      const mesh::Triangle& t = body.mesh.boundary[hit.triangle];
      const mesh::SurfaceWeights w = mesh::surface_weights(
          body.mesh, hit.triangle, mesh::barycentric(hit.point, body.x.col(t[0]), body.x.col(t[1]), body.x.col(t[2])));
      v.setZero();
      for (int j = 0; j < w.count; ++j) v += w.weight[j] * body.v.col(w.node[j]);
    }
    return v;
  };
}

}  // namespace fsicut::sim
