#include "lib/sim/cutcell/probes.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "lib/core/error.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/sim/cutcell/simulator.hpp"

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

// The height [m] of the free surface that crosses the vertical line through
// (x, z) of `at` between cell rows j and j + 1, from the smoothed liquid
// fraction rho = 1/2 - W1(0) phi / dx (levelset/liquid_sdf.hpp) interpolated
// bilinearly in x and z: the bottom of row j - 1 plus dx times the sum of rho
// over rows j - 1 .. j + 2. The kernel's integer translates sum to 1, so for a
// surface flat across the kernel's 3 cells the sum is the liquid's depth above
// that bottom exactly, wherever the surface lies in its cell (that bottom lies
// at least 1.5 cells below the surface, and rho = 0 from 1.5 cells above it).
// Why not the zero crossing of phi interpolated linearly between the rows: phi
// is cubic near the surface, and that crossing is up to 0.05 cell off, a bias
// that changes with the surface's place in its cell (4 % of a 1.2-cell
// sloshing amplitude). None when a row is missing or a cell's centre is in a
// solid (phi extended there, not the particles' fraction).
std::optional<Real> column_height(const fluid::Liquid& l, const Vec3& at, int j) {
  const grid::MacGrid& g = l.grid;
  if (j < 1 || j + 2 >= g.resolution.y() || l.solid_phi.count() == 0) return std::nullopt;
  const grid::Stencil s = grid::stencil(g, l.liquid_phi.size(), grid::Sampling::cell, at);
  Real sum = 0;
  for (int n = 0; n < 4; ++n) {
    const bool hx = n & 1, hz = n & 2;
    const int i = hx ? s.hi.x() : s.lo.x(), k = hz ? s.hi.z() : s.lo.z();
    const Real w = (hx ? s.t.x() : 1 - s.t.x()) * (hz ? s.t.z() : 1 - s.t.z());
    if (!(w > 0)) continue;
    for (int r = j - 1; r <= j + 2; ++r) {
      if (levelset::solid_phi_at_cell(l.solid_phi, i, r, k) < 0) return std::nullopt;
      sum += w * (0.5 - levelset::COLOUR_KERNEL_CENTRE * l.liquid_phi(i, r, k) / g.dx);
    }
  }
  return g.origin.y() + (j - 1) * g.dx + sum * g.dx;
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

Real probe_pressure(const CutCellSimulator& state, const Vec3& x) {
  if (!state.liquid) return 0;
  const fluid::Liquid& l = *state.liquid;
  if (grid::interpolate(l.grid, l.liquid_phi, grid::Sampling::cell, x) > 0) return 0;
  return grid::interpolate_where(l.grid, l.pressure, grid::Sampling::cell, x,
                                 [&](const Vec3i& c) { return l.liquid_phi(c.x(), c.y(), c.z()) < 0; });
}

Real gauge_height(const CutCellSimulator& state, const scene::Probe& gauge) {
  const Real bottom = gauge.position.y(), top = gauge.top;
  if (!state.liquid) return bottom;
  const fluid::Liquid& l = *state.liquid;
  const auto phi = [&](Real y) {
    return grid::interpolate(l.grid, l.liquid_phi, grid::Sampling::cell, Vec3(gauge.position.x(), y, gauge.position.z()));
  };
  // Heights where phi is sampled, bottom up: the ends and the cell-centre levels
  // between them (`level` their cell row, -1 for the ends), phi linear in between.
  std::vector<Real> ys{bottom};
  std::vector<int> level{-1};
  for (int j = 0; j < l.grid.resolution.y(); ++j) {
    const Real y = l.grid.origin.y() + (j + 0.5) * l.grid.dx;
    if (y > bottom && y < top) {
      ys.push_back(y);
      level.push_back(j);
    }
  }
  ys.push_back(top);
  level.push_back(-1);
  // The first crossing from liquid into air, scanning upward.
  Real below = phi(bottom);
  for (std::size_t i = 1; i < ys.size(); ++i) {
    const Real above = phi(ys[i]);
    if (below < 0 && above >= 0) {
      const std::optional<Real> column = level[i - 1] >= 0 && level[i] >= 0 ? column_height(l, gauge.position, level[i - 1])
                                                                           : std::nullopt;
      if (column) return std::clamp(*column, ys[i - 1], ys[i]);
      return ys[i - 1] + (ys[i] - ys[i - 1]) * below / (below - above);
    }
    below = above;
  }
  return below < 0 ? top : bottom;
}

Vec3 point_displacement(const CutCellSimulator& state, const ProbeSite& site) {
  const solid::Body& b = state.solids[site.solid];
  Vec3 x = Vec3::Zero();
  for (std::size_t k = 0; k < 4; ++k) x += site.weights[k] * b.x.col(site.nodes[k]);
  return x - site.probe.position;
}

Vec3 point_velocity(const CutCellSimulator& state, const ProbeSite& site) {
  const solid::Body& b = state.solids[site.solid];
  Vec3 v = Vec3::Zero();
  for (std::size_t k = 0; k < 4; ++k) v += site.weights[k] * b.v.col(site.nodes[k]);
  return v;
}

std::string CutCellSimulator::probes_header() const { return sim::probes_header(probes); }

std::string CutCellSimulator::probes_row() const {
  const CutCellSimulator& state = *this;
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
