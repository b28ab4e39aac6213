#include "lib/sim/cutcell/particle_paths.hpp"

#include <algorithm>
#include <limits>

#include "lib/core/parallel.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/mesh/barycentric.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {

ParticlePaths start_particle_paths(const CutCellSimulator& state, Real moved) {
  ParticlePaths paths;
  if (!state.liquid || state.surfaces.meshes.empty()) return paths;
  const fluid::Liquid& liquid = *state.liquid;
  const grid::MacGrid& g = liquid.grid;
  paths.start = liquid.particles;
  for (const levelset::MeshDistance& d : state.surfaces.meshes) paths.solid_start.push_back(d.vertices());
  const Real reach = PATH_ANCHOR_CELLS * g.dx;
  const Index n = paths.start.cols();
  // The node field is exact within the band: farther particles have nothing near.
  std::vector<char> near(static_cast<std::size_t>(n), 0);
  parallel_for(0, n, [&](Index p) {
    near[static_cast<std::size_t>(p)] =
        grid::interpolate(g, liquid.solid_phi, grid::Sampling::node, paths.start.col(p)) <= reach + g.dx + moved;
  });
  for (Index p = 0; p < n; ++p)
    if (near[static_cast<std::size_t>(p)]) paths.anchors.push_back({p, -1, 0, Vec3::Zero()});
  parallel_for(0, static_cast<Index>(paths.anchors.size()), [&](Index a) {
    ParticlePaths::Anchor& anchor = paths.anchors[static_cast<std::size_t>(a)];
    const Vec3 x = paths.start.col(anchor.particle);
    Real best = std::numeric_limits<Real>::infinity();
    for (std::size_t b = 0; b < state.surfaces.meshes.size(); ++b) {
      const levelset::MeshDistance& d = state.surfaces.meshes[b];
      const levelset::MeshHit hit = d.closest(x, reach);
      if (!hit.found || std::abs(hit.distance) >= best) continue;
      best = std::abs(hit.distance);
      const mesh::Triangle& t = d.triangles()[static_cast<std::size_t>(hit.triangle)];
      const Points& v = d.vertices();
      anchor = {anchor.particle, static_cast<int>(b), hit.triangle,
                mesh::barycentric(hit.point, v.col(t[0]), v.col(t[1]), v.col(t[2]))};
    }
  });
  // Candidates with no triangle within reach stay where they start.
  paths.anchors.erase(std::remove_if(paths.anchors.begin(), paths.anchors.end(),
                                     [](const ParticlePaths::Anchor& a) { return a.body < 0; }),
                      paths.anchors.end());
  return paths;
}

void follow_particles(ParticlePaths& paths, const std::vector<Index>& moved, const Points& particles) {
  if (paths.start.cols() == 0) return;
  if (!moved.empty()) {
    Index kept = 0;
    for (Index p = 0; p < paths.start.cols(); ++p)
      if (moved[static_cast<std::size_t>(p)] >= 0) paths.start.col(kept++) = paths.start.col(p);
    paths.start.conservativeResize(3, kept);
    std::vector<ParticlePaths::Anchor> anchors;
    for (ParticlePaths::Anchor a : paths.anchors) {
      a.particle = moved[static_cast<std::size_t>(a.particle)];
      if (a.particle >= 0) anchors.push_back(a);
    }
    paths.anchors = std::move(anchors);
  }
  const Index before = paths.start.cols();
  if (particles.cols() <= before) return;
  paths.start.conservativeResize(3, particles.cols());
  paths.start.rightCols(particles.cols() - before) = particles.rightCols(particles.cols() - before);
}

void update_particle_reach(CutCellSimulator& state) {
  if (!state.liquid || state.surfaces.meshes.empty()) return;
  fluid::Liquid& liquid = *state.liquid;
  if (liquid.reach.cells.count() == 0) return;
  liquid.reach.particles =
      cutcell::particle_reach(liquid.grid, liquid.solid_phi, state.surfaces.meshes, liquid.reach, liquid.particles);
}

// The margin [cells] of the far-path test of stop_particles_at_solids: more
// than the sqrt(3) dx a trilinear interpolation can be off a distance field.
constexpr Real PATH_SKIP_CELLS = 2;

Index stop_particles_at_solids(CutCellSimulator& state, ParticlePaths& paths, Real moved) {
  if (!state.liquid || state.surfaces.meshes.empty()) return 0;
  fluid::Liquid& liquid = *state.liquid;
  const grid::MacGrid& g = liquid.grid;
  Points& start = paths.start;
  // Carry the anchored starts with the solid: the surface point's displacement.
  parallel_for(0, static_cast<Index>(paths.anchors.size()), [&](Index a) {
    const ParticlePaths::Anchor& anchor = paths.anchors[static_cast<std::size_t>(a)];
    const Points& before = paths.solid_start[static_cast<std::size_t>(anchor.body)];
    const Points& after = state.surfaces.meshes[static_cast<std::size_t>(anchor.body)].vertices();
    const mesh::Triangle& t =
        state.surfaces.meshes[static_cast<std::size_t>(anchor.body)].triangles()[static_cast<std::size_t>(anchor.triangle)];
    Vec3 moved = Vec3::Zero();
    for (int k = 0; k < 3; ++k) moved += anchor.barycentric[k] * (after.col(t[k]) - before.col(t[k]));
    start.col(anchor.particle) += moved;
  });
  const Real margin = PATH_MARGIN_CELLS * g.dx;
  const Vec3 lo = g.origin, hi = g.max();
  std::vector<char> stopped(static_cast<std::size_t>(start.cols()), 0);
  parallel_for(0, start.cols(), [&](Index p) {
    const Vec3 s = start.col(p), e = liquid.particles.col(p);
    if (s == e) return;
    // A path whose end is farther from every solid than the path is long meets
    // none. solid_phi bounds the distance from below (exact at the nodes within
    // the band, clamped beyond it), and its trilinear interpolation is within
    // sqrt(3) dx of the node values' distance. Why: testing every particle
    // against every surface was the leading cost of a tank with a dozen bodies
    // (17 % of a substep).
    const Real skip = (e - s).norm() + PATH_SKIP_CELLS * g.dx + moved;
    if (grid::interpolate(g, liquid.solid_phi, grid::Sampling::node, e) > skip) return;
    levelset::SegmentHits first;
    const levelset::MeshDistance* by = nullptr;
    for (const levelset::MeshDistance& d : state.surfaces.meshes) {
      const levelset::SegmentHits h = d.segment_hits(s, e);
      if (h.count > 0 && h.first < first.first) {
        first = h;
        by = &d;
      }
    }
    if (!by) return;
    const Vec3& n = by->face_normal(first.triangle);
    const Vec3 d = e - s;
    // Leaving a solid (the start was inside it): the SDF push-out's business.
    if (!(n.dot(d) < 0)) return;
    // In and out again through faces that do not face each other: the path
    // grazed a convex part, and the push-out has already put its end outside.
    if (first.count >= 2 && !(n.dot(by->face_normal(first.last_triangle)) < cutcell::WALL_NORMALS)) return;
    // Back on the side it came from: at the surface point nearest the end when
    // that lies on a face turned the same way as the entry, so the particle
    // keeps its motion along the surface (the push-out follows the trilinear
    // node distance, which lies up to ~dx^2 / (8 R) inside a curved solid's
    // triangles: stopped at their entry points, liquid splashing over a torus
    // packed there, -14 % volume in 1 s against -8 %); else at the entry point
    // (through a wall, the nearest point may be on its far face).
    Vec3 x = first.point + margin * n;
    if (first.count == 1) {
      const levelset::MeshHit near = by->closest(e, g.dx);
      if (near.found && near.distance >= 0) return;  // the end is not inside after all (an edge grazed)
      if (near.found && near.normal.dot(n) > 0) x = near.point + margin * near.normal;
    }
    liquid.particles.col(p) = x.cwiseMax(lo).cwiseMin(hi);
    stopped[static_cast<std::size_t>(p)] = 1;
  });
  Index count = 0;
  for (char c : stopped) count += c;
  return count;
}

}  // namespace fsicut::sim
