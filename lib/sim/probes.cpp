#include "lib/sim/probes.hpp"

#include <cstdio>
#include <limits>

#include "lib/core/error.hpp"
#include "lib/sim/state.hpp"

namespace fsicut::sim {
namespace {

// Why a tolerance: a point on a face shared by two tetrahedra has a
// barycentric coordinate of round-off size and either sign in both.
constexpr Real INSIDE_TOLERANCE = 1e-9;

// Barycentric coordinates of x in the tetrahedron (a, b, c, d).
std::array<Real, 4> tet_coordinates(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  Eigen::Matrix3d edges;
  edges << b - a, c - a, d - a;
  const Vec3 l = edges.fullPivLu().solve(x - a);
  return {1 - l.sum(), l[0], l[1], l[2]};
}

ProbeSite point_site(const scene::Probe& p, const std::vector<solid::Body>& solids, const std::string& scene_file) {
  ProbeSite site;
  site.probe = p;
  while (site.solid < solids.size() && solids[site.solid].name != p.solid) ++site.solid;
  if (site.solid == solids.size()) throw SceneError(scene_file, p.pointer + "/solid", "no solid is named \"" + p.solid + "\"");
  const mesh::TetMesh& m = solids[site.solid].mesh;
  Real best = -std::numeric_limits<Real>::infinity();
  for (const mesh::Tet& t : m.tets) {
    const std::array<Real, 4> w =
        tet_coordinates(p.position, m.rest.col(t[0]), m.rest.col(t[1]), m.rest.col(t[2]), m.rest.col(t[3]));
    const Real worst = std::min(std::min(w[0], w[1]), std::min(w[2], w[3]));
    if (!(worst > best)) continue;
    best = worst;
    site.weights = w;
    for (int k = 0; k < 4; ++k) site.nodes[static_cast<std::size_t>(k)] = t[k];
  }
  if (!(best >= -INSIDE_TOLERANCE))
    throw SceneError(scene_file, p.pointer + "/position",
                     "lies outside solid \"" + p.solid + "\" at rest: a point probe follows a material point of the solid");
  return site;
}

std::string number(Real v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

}  // namespace

std::vector<ProbeSite> probe_sites(const std::vector<scene::Probe>& probes, const std::vector<solid::Body>& solids,
                                   const std::string& scene_file) {
  std::vector<ProbeSite> sites;
  for (const scene::Probe& p : probes) {
    if (p.type == scene::Probe::Type::point) {
      sites.push_back(point_site(p, solids, scene_file));
    } else {
      sites.emplace_back();
      sites.back().probe = p;
    }
  }
  return sites;
}

std::string probes_header(const std::vector<ProbeSite>& sites) {
  if (sites.empty()) return "";
  std::string line = "time";
  for (const ProbeSite& s : sites) {
    if (s.probe.type != scene::Probe::Type::point) {
      line += "," + s.probe.name;
      continue;
    }
    for (const char* column : {".dx", ".dy", ".dz", ".vx", ".vy", ".vz"}) line += "," + s.probe.name + column;
  }
  return line + "\n";
}

Real probe_pressure(const SimState& state, const Vec3& x) {
  if (!state.liquid) return 0;
  const fluid::Liquid& l = *state.liquid;
  if (grid::interpolate(l.grid, l.liquid_phi, grid::Sampling::cell, x) > 0) return 0;
  return grid::interpolate_where(l.grid, l.pressure, grid::Sampling::cell, x,
                                 [&](const Vec3i& c) { return l.liquid_phi(c.x(), c.y(), c.z()) < 0; });
}

Real gauge_height(const SimState& state, const scene::Probe& gauge) {
  const Real bottom = gauge.position.y(), top = gauge.top;
  if (!state.liquid) return bottom;
  const fluid::Liquid& l = *state.liquid;
  const auto phi = [&](Real y) {
    return grid::interpolate(l.grid, l.liquid_phi, grid::Sampling::cell, Vec3(gauge.position.x(), y, gauge.position.z()));
  };
  // Heights where phi is sampled, bottom up: the ends and the cell-centre levels
  // between them, phi linear in between.
  std::vector<Real> ys{bottom};
  for (int j = 0; j < l.grid.resolution.y(); ++j) {
    const Real y = l.grid.origin.y() + (j + 0.5) * l.grid.dx;
    if (y > bottom && y < top) ys.push_back(y);
  }
  ys.push_back(top);
  // The first crossing from liquid into air, scanning upward.
  Real below = phi(bottom);
  for (std::size_t i = 1; i < ys.size(); ++i) {
    const Real above = phi(ys[i]);
    if (below < 0 && above >= 0) return ys[i - 1] + (ys[i] - ys[i - 1]) * below / (below - above);
    below = above;
  }
  return below < 0 ? top : bottom;
}

Vec3 point_displacement(const SimState& state, const ProbeSite& site) {
  const solid::Body& b = state.solids[site.solid];
  Vec3 x = Vec3::Zero();
  for (std::size_t k = 0; k < 4; ++k) x += site.weights[k] * b.x.col(site.nodes[k]);
  return x - site.probe.position;
}

Vec3 point_velocity(const SimState& state, const ProbeSite& site) {
  const solid::Body& b = state.solids[site.solid];
  Vec3 v = Vec3::Zero();
  for (std::size_t k = 0; k < 4; ++k) v += site.weights[k] * b.v.col(site.nodes[k]);
  return v;
}

std::string probes_row(const SimState& state) {
  if (state.probes.empty()) return "";
  std::string line = number(state.time);
  for (const ProbeSite& s : state.probes) {
    switch (s.probe.type) {
      case scene::Probe::Type::pressure: line += "," + number(probe_pressure(state, s.probe.position)); break;
      case scene::Probe::Type::gauge: line += "," + number(gauge_height(state, s.probe)); break;
      case scene::Probe::Type::point: {
        const Vec3 d = point_displacement(state, s), v = point_velocity(state, s);
        for (int a = 0; a < 3; ++a) line += "," + number(d[a]);
        for (int a = 0; a < 3; ++a) line += "," + number(v[a]);
        break;
      }
    }
  }
  return line + "\n";
}

}  // namespace fsicut::sim
