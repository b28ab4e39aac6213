#include "lib/fluid/pressure_projection.hpp"

#include <algorithm>
#include <string>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"

namespace fsicut::fluid {
namespace {

// The six neighbours of a cell in increasing linear-index order:
// -z, -y, -x, (self), +x, +y, +z.
constexpr int NEIGHBOUR_AXIS[6] = {2, 1, 0, 0, 1, 2};
constexpr int NEIGHBOUR_SIDE[6] = {-1, -1, -1, 1, 1, 1};

// The first unknown of every group of unknowns 0..n-1 in which none touches
// air. visit(r, join) calls join(next) for each unknown r is joined to and
// returns whether r touches air.
template <class Visit>
std::vector<int> closed_groups(int n, Visit&& visit) {
  std::vector<int> group(n, -1);
  std::vector<int> stack, result;
  for (int seed = 0; seed < n; ++seed) {
    if (group[seed] >= 0) continue;
    bool has_air = false;
    group[seed] = seed;
    stack.push_back(seed);
    while (!stack.empty()) {
      const int r = stack.back();
      stack.pop_back();
      const bool air = visit(r, [&](int next) {
        if (group[next] >= 0) return;
        group[next] = seed;
        stack.push_back(next);
      });
      has_air = has_air || air;
    }
    if (!has_air) result.push_back(seed);
  }
  return result;
}

// Every group of active cells (connected through open faces) that has no
// free-surface face: one representative cell (its first unknown) per group.
std::vector<int> groups_without_air(const cutcell::ActiveCells& active,
                                    const grid::Array3<Real>& liquid_phi,
                                    const cutcell::FaceFractions& fractions) {
  return closed_groups(active.count(), [&](int r, auto&& join) {
    const Vec3i c = liquid_phi.coord(active.cells[r]);
    bool air = false;
    for (int q = 0; q < 6; ++q) {
      const int axis = NEIGHBOUR_AXIS[q], side = NEIGHBOUR_SIDE[q];
      if (cutcell::cell_face_fraction(fractions, axis, side, c) <= 0) continue;
      Vec3i nb = c;
      nb[axis] += side;
      const int rn = active.row(nb);
      if (rn < 0) {
        air = true;
      } else {
        join(rn);
      }
    }
    return air;
  });
}

// Pinned groups from the unknowns' links (`links[u]`: the unknowns u shares a
// whole face or a piece with): every group without an unknown in `air` gets
// its first unknown's diagonal raised by `scale` (as groups_without_air, for
// split cells, whose faces' pieces join regions rather than cells).
int pin_closed_groups(linsolve::SparseMatrix& matrix, const std::vector<std::vector<int>>& links,
                      const std::vector<char>& air, Real scale) {
  const std::vector<int> closed = closed_groups(static_cast<int>(matrix.rows()), [&](int r, auto&& join) {
    for (const int next : links[r]) join(next);
    return air[r] != 0;
  });
  for (const int seed : closed) matrix.coeffRef(seed, seed) += scale;
  return static_cast<int>(closed.size());
}

using Entries = std::vector<std::pair<int, Real>>;

// Row u's entries and right side from face `face` of axis `axis` on `side` of
// its cell, when the face has pieces (see the header): each piece of the
// region's side is a face of its own fraction.
void add_split_face(const cutcell::ActiveCells& active, const grid::Array3<Real>& liquid_phi,
                    const std::vector<cutcell::FacePiece>& pieces, Index cell, Index neighbour, int region, int side,
                    Real scale, Entries& row, Real& diag, Real& flux_fraction, bool& air, std::vector<int>& links) {
  for (const cutcell::FacePiece& p : pieces) {
    const int here = side > 0 ? p.low : p.high, there = side > 0 ? p.high : p.low;
    if (here != region) continue;
    flux_fraction += p.fraction;
    const int ut = active.unknown(neighbour, there);
    if (ut >= 0) {
      diag += p.fraction * scale;
      row.emplace_back(ut, -p.fraction * scale);
      links.push_back(ut);
    } else {
      diag += p.fraction * scale / ghost_theta(active.phi(liquid_phi, cell, here), active.phi(liquid_phi, neighbour, there));
      air = true;
    }
  }
}

// Sorts a row's entries by column and sums those of one column.
void merge_entries(Entries& row) {
  std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t kept = 0;
  for (std::size_t e = 0; e < row.size(); ++e) {
    if (kept > 0 && row[kept - 1].first == row[e].first) {
      row[kept - 1].second += row[e].second;
    } else {
      row[kept++] = row[e];
    }
  }
  row.resize(kept);
}

// assemble_pressure with split cells: rows built entry by entry, merged.
PressureSystem assemble_split(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                              const cutcell::FaceFractions& fractions, const grid::MacVelocity& velocity,
                              Real scale, const cutcell::SplitCells& split, const grid::MacVelocity* wall) {
  PressureSystem sys;
  sys.active = cutcell::find_active_cells(grid, liquid_phi, fractions, split);
  const cutcell::ActiveCells& active = sys.active;
  const int n = active.count();
  const Real inv_dx = 1 / grid.dx;
  std::vector<int> region(n, 0);
  for (const auto& [cell, unknowns] : active.regions)
    for (std::size_t r = 0; r < unknowns.size(); ++r)
      if (unknowns[r] >= 0) region[unknowns[r]] = static_cast<int>(r);
  std::vector<Entries> rows(n);
  std::vector<std::vector<int>> links(n);
  std::vector<char> air(n, 0);
  sys.rhs.resize(n);
  parallel_for(0, n, [&](Index u) {
    const Index cell = active.cells[u];
    const Vec3i c = liquid_phi.coord(cell);
    Entries& row = rows[u];
    Real diag = 0, rhs = 0;
    bool touches_air = false;
    // A moving wall's examined cells balance the flux relative to the wall;
    // the others count their closed parts as moving with it (see the header).
    const bool examined = wall && split.regions.count(cell) > 0;
    for (int q = 0; q < 6; ++q) {
      const int axis = NEIGHBOUR_AXIS[q], side = NEIGHBOUR_SIDE[q];
      Vec3i face = c, nb = c;
      if (side > 0) face[axis] += 1;
      nb[axis] += side;
      const Index idx = fractions[axis].index(face.x(), face.y(), face.z());
      const Real w = fractions[axis][idx];
      const Real moving = wall ? (*wall)[axis][idx] : 0;
      if (wall && !examined) rhs -= side * (1 - std::max(w, Real(0))) * moving * inv_dx;
      if (!(w > 0)) continue;
      const Index neighbour = liquid_phi.index(nb.x(), nb.y(), nb.z());
      if (const std::vector<cutcell::FacePiece>* pieces = split.pieces(axis, idx)) {
        Real flux_fraction = 0;
        add_split_face(active, liquid_phi, *pieces, cell, neighbour, region[u], side, scale, row, diag,
                       flux_fraction, touches_air, links[u]);
        rhs -= side * flux_fraction * velocity[axis][idx] * inv_dx;
        if (examined) rhs += side * flux_fraction * moving * inv_dx;
        else if (wall) rhs -= side * (w - flux_fraction) * moving * inv_dx;
        continue;
      }
      rhs -= side * w * velocity[axis][idx] * inv_dx;
      if (examined) rhs += side * w * moving * inv_dx;
      const int rn = active.row[neighbour];
      if (rn >= 0) {
        diag += w * scale;
        row.emplace_back(rn, -w * scale);
        links[u].push_back(rn);
      } else {
        diag += w * scale / ghost_theta(liquid_phi[cell], liquid_phi[neighbour]);
        touches_air = true;
      }
    }
    row.emplace_back(static_cast<int>(u), diag);
    merge_entries(row);
    air[u] = touches_air;
    sys.rhs[u] = rhs;
  });
  sys.matrix.resize(n, n);
  int* outer = sys.matrix.outerIndexPtr();
  outer[0] = 0;
  for (int r = 0; r < n; ++r) outer[r + 1] = outer[r] + static_cast<int>(rows[r].size());
  sys.matrix.resizeNonZeros(outer[n]);
  parallel_for(0, n, [&](Index r) {
    int pos = sys.matrix.outerIndexPtr()[r];
    for (const auto& [j, v] : rows[r]) {
      sys.matrix.innerIndexPtr()[pos] = j;
      sys.matrix.valuePtr()[pos++] = v;
    }
  });
  sys.pinned_groups = pin_closed_groups(sys.matrix, links, air, scale);
  return sys;
}


// The velocity update of the faces with pieces (see the header): each piece
// with liquid beside it by its own pressure difference (the ghost-fluid one
// with liquid on one side only); the face keeps their flux-weighted mean.
void apply_split_faces(const cutcell::ActiveCells& active, const grid::Array3<Real>& liquid_phi,
                       const cutcell::FaceFractions& fractions, const grid::Array3<Real>& pressure,
                       const std::vector<Real>& regions, Real coef, const cutcell::SplitCells& split,
                       grid::MacVelocity& velocity, FaceFlags& valid, PieceVelocities* out) {
  const auto value = [&](int u) {
    return u < active.whole ? pressure[active.cells[u]] : regions[static_cast<std::size_t>(u - active.whole)];
  };
  std::vector<Real> piece;
  std::vector<char> touched;
  for (int a = 0; a < 3; ++a)
    for (const auto& [idx, pieces] : split.faces[a]) {
      if (!(fractions[a][idx] > 0)) continue;
      const Vec3i f = fractions[a].coord(idx);
      Vec3i left = f;
      left[a] -= 1;
      const Index low = liquid_phi.index(left.x(), left.y(), left.z()), high = liquid_phi.index(f.x(), f.y(), f.z());
      const Real start = velocity[a][idx];
      Real flux = 0, set = 0;
      piece.assign(pieces.size(), start);
      touched.assign(pieces.size(), 0);
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        const cutcell::FacePiece& p = pieces[k];
        const int ul = active.unknown(low, p.low), uh = active.unknown(high, p.high);
        Real gradient;
        if (ul >= 0 && uh >= 0) {
          gradient = value(uh) - value(ul);
        } else if (ul >= 0) {
          gradient = -value(ul) / ghost_theta(active.phi(liquid_phi, low, p.low), active.phi(liquid_phi, high, p.high));
        } else if (uh >= 0) {
          gradient = value(uh) / ghost_theta(active.phi(liquid_phi, high, p.high), active.phi(liquid_phi, low, p.low));
        } else {
          continue;
        }
        piece[k] = start - coef * gradient;
        touched[k] = 1;
        flux += p.fraction * piece[k];
        set += p.fraction;
      }
      if (!(set > 0)) continue;
      velocity[a][idx] = flux / set;
      valid[a][idx] = 1;
      // Pieces no liquid touches take the face's mean (nothing reads them as
      // a flux; a particle that strays there reads a plausible speed).
      for (std::size_t k = 0; k < pieces.size(); ++k)
        if (!touched[k]) piece[k] = velocity[a][idx];
      if (out) out->faces[a][idx] = piece;
    }
}

}  // namespace

Real ghost_theta(Real phi_liquid, Real phi_air) {
  const Real denom = phi_liquid - phi_air;
  const Real theta = denom < 0 ? phi_liquid / denom : Real(1);
  return std::clamp(theta, THETA_MIN, Real(1));
}

PressureSystem assemble_pressure(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                                 const cutcell::FaceFractions& fractions,
                                 const grid::MacVelocity& velocity, Real dt, Real density,
                                 const cutcell::SplitCells& split, const grid::MacVelocity* wall) {
  if (!split.empty())
    return assemble_split(grid, liquid_phi, fractions, velocity, dt / (density * grid.dx * grid.dx), split, wall);
  PressureSystem sys;
  sys.active = cutcell::find_active_cells(grid, liquid_phi, fractions);
  const auto& active = sys.active;
  const int n = active.count();
  const Real scale = dt / (density * grid.dx * grid.dx);
  const Real inv_dx = 1 / grid.dx;

  // Row lengths, then the compressed row layout filled in place (no triplets).
  std::vector<int> length(n);
  parallel_for(0, n, [&](Index r) {
    const Vec3i c = liquid_phi.coord(active.cells[r]);
    int len = 1;
    for (int q = 0; q < 6; ++q) {
      const int axis = NEIGHBOUR_AXIS[q], side = NEIGHBOUR_SIDE[q];
      if (cutcell::cell_face_fraction(fractions, axis, side, c) <= 0) continue;
      Vec3i nb = c;
      nb[axis] += side;
      if (active.row(nb) >= 0) ++len;
    }
    length[r] = len;
  });
  sys.matrix.resize(n, n);
  int* outer = sys.matrix.outerIndexPtr();
  outer[0] = 0;
  for (int r = 0; r < n; ++r) outer[r + 1] = outer[r] + length[r];
  sys.matrix.resizeNonZeros(outer[n]);
  int* inner = sys.matrix.innerIndexPtr();
  Real* value = sys.matrix.valuePtr();
  sys.rhs.resize(n);

  parallel_for(0, n, [&](Index r) {
    const Vec3i c = liquid_phi.coord(active.cells[r]);
    const Real phi_c = liquid_phi(c);
    int pos = outer[r];
    int diag_pos = -1;
    Real diag = 0, rhs = 0;
    for (int q = 0; q < 6; ++q) {
      const int axis = NEIGHBOUR_AXIS[q], side = NEIGHBOUR_SIDE[q];
      if (q == 3) diag_pos = pos++;  // the diagonal sits between -x and +x
      const Real w = cutcell::cell_face_fraction(fractions, axis, side, c);
      Vec3i face = c;
      if (side > 0) face[axis] += 1;
      if (wall) rhs -= side * (1 - std::max(w, Real(0))) * (*wall)[axis](face) * inv_dx;
      if (w <= 0) continue;
      rhs -= side * w * velocity[axis](face) * inv_dx;
      Vec3i nb = c;
      nb[axis] += side;
      const int rn = active.row(nb);
      if (rn >= 0) {
        diag += w * scale;
        inner[pos] = rn;
        value[pos] = -w * scale;
        ++pos;
      } else {
        diag += w * scale / ghost_theta(phi_c, liquid_phi(nb));
      }
    }
    inner[diag_pos] = static_cast<int>(r);
    value[diag_pos] = diag;
    sys.rhs[r] = rhs;
  });

  // Why: a group of active cells with no free surface (liquid filling a closed
  // cavity) has a constant pressure null space and IC-PCG may break down on it.
  // Giving its first cell a free-surface term (p = 0 one cell away, theta = 1)
  // fixes the constant; the group's divergence is still removed everywhere except
  // that cell when u* is compatible.
  const std::vector<int> closed = groups_without_air(active, liquid_phi, fractions);
  for (int r : closed) sys.matrix.coeffRef(r, r) += scale;
  sys.pinned_groups = static_cast<int>(closed.size());
  return sys;
}

void add_wall_inflow(PressureSystem& sys, const grid::MacGrid& grid, const WallInflows& inflow) {
  const Real inv_dx = 1 / grid.dx;
  for (const WallInflow& w : inflow) {
    Vec3i cell = w.face;
    const bool far_end = cell[w.axis] == grid.resolution[w.axis];
    if (far_end) cell[w.axis] -= 1;
    const int r = sys.active.row(cell);
    if (r >= 0) sys.rhs[r] += (far_end ? -1 : 1) * w.velocity * inv_dx;
  }
}

std::vector<Vec3i> PressureSystem::cells() const {
  std::vector<Vec3i> out(active.cells.size());
  parallel_for(0, static_cast<Index>(out.size()), [&](Index r) { out[r] = active.row.coord(active.cells[r]); });
  return out;
}

linsolve::Vector gather_pressure(const cutcell::ActiveCells& active, const grid::Array3<Real>& pressure) {
  linsolve::Vector x(active.count());
  for (int r = 0; r < active.count(); ++r) x[r] = pressure[active.cells[r]];
  return x;
}

void scatter_pressure(const cutcell::ActiveCells& active, const linsolve::Vector& x, grid::Array3<Real>& pressure,
                      std::vector<Real>& regions) {
  pressure.fill(0);
  for (int r = 0; r < active.whole; ++r) pressure[active.cells[r]] = x[r];
  regions.assign(x.data() + active.whole, x.data() + active.count());
}

linsolve::Report solve_pressure(const PressureSystem& sys, const ProjectionSettings& settings,
                                grid::Array3<Real>& pressure, std::vector<Real>* regions) {
  const auto& active = sys.active;
  const int n = active.count();
  linsolve::Vector x = gather_pressure(active, pressure);
  linsolve::PcgSettings pcg;
  pcg.tolerance = settings.tolerance;
  pcg.max_iterations = settings.max_iterations;
  linsolve::Report report = linsolve::nothing_to_solve();
  if (n > 0) {
    const linsolve::ApplyPreconditioner precondition =
        linsolve::make_preconditioner(settings.preconditioner, sys.matrix, sys.cells());
    if (precondition) {
      report = linsolve::solve_pcg(sys.matrix, sys.rhs, x, pcg, precondition);
    } else {
      report.converged = false;
      report.unknowns = n;
      report.relative_residual = (sys.rhs - sys.matrix * x).norm() / sys.rhs.norm();
      report.failure = "the preconditioner of the pressure matrix could not be set up";
    }
  }
  if (!report.converged && !settings.allow_unconverged)
    throw SimulationError("pressure solve did not converge: relative residual " +
                          std::to_string(report.relative_residual) + " after " +
                          std::to_string(report.iterations) + " iterations (" + std::to_string(n) +
                          " unknowns)");
  std::vector<Real> further;
  scatter_pressure(active, x, pressure, regions ? *regions : further);
  return report;
}

void apply_pressure(const grid::MacGrid& grid, const cutcell::ActiveCells& active,
                    const grid::Array3<Real>& liquid_phi, const cutcell::FaceFractions& fractions,
                    const grid::Array3<Real>& pressure, Real dt, Real density,
                    grid::MacVelocity& velocity, FaceFlags& valid, const cutcell::SplitCells& split,
                    const std::vector<Real>& regions, PieceVelocities* pieces) {
  const Real coef = dt / (density * grid.dx);
  for (int a = 0; a < 3; ++a) {
    valid[a].resize(grid.face_shape(a));
    valid[a].fill(0);
  }
  // Only the faces of active cells can change: each is visited from its left
  // cell if that is active, else from its right one (exactly once, so the
  // parallel writes never meet). Why not a loop over every face: at low fill
  // most of the grid is air, and the whole-grid sweep cost more than the
  // liquid's faces (measured, a 0.5 % filled 100^3 tank).
  parallel_for(0, active.count(), [&](Index r) {
    const Vec3i c = active.row.coord(active.cells[static_cast<std::size_t>(r)]);
    for (int a = 0; a < 3; ++a) {
      const int n_a = grid.resolution[a];
      for (int side = 0; side < 2; ++side) {
        Vec3i f = c;
        f[a] += side;
        Vec3i left = f;
        left[a] -= 1;
        const Vec3i& right = f;
        if (f[a] == 0 || f[a] == n_a) continue;
        const bool la = active.row(left) >= 0, ra = active.row(right) >= 0;
        if (side == 0 && la) continue;  // the left cell visits it
        const Index idx = velocity[a].index(f.x(), f.y(), f.z());
        if (!(fractions[a][idx] > 0)) continue;
        if (!split.empty() && split.pieces(a, idx)) continue;  // below
        Real pl, pr;
        if (la && ra) {
          pl = pressure(left);
          pr = pressure(right);
        } else if (la) {
          // Ghost pressure on the air side: p = 0 at theta of the way from the left centre.
          pl = pressure(left);
          pr = pl * (1 - 1 / ghost_theta(liquid_phi(left), liquid_phi(right)));
        } else {
          pr = pressure(right);
          pl = pr * (1 - 1 / ghost_theta(liquid_phi(right), liquid_phi(left)));
        }
        velocity[a][idx] -= coef * (pr - pl);
        valid[a][idx] = 1;
      }
    }
  });
  if (pieces) pieces->clear();
  if (!split.empty())
    apply_split_faces(active, liquid_phi, fractions, pressure, regions, coef, split, velocity, valid, pieces);
}

linsolve::Report project_pressure(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                         const cutcell::FaceFractions& fractions, Real dt, Real density,
                         const ProjectionSettings& settings, grid::MacVelocity& velocity,
                         grid::Array3<Real>& pressure, FaceFlags& valid, const cutcell::SplitCells& split,
                         std::vector<Real>* regions, PieceVelocities* pieces, const grid::MacVelocity* wall,
                         const WallInflows& inflow) {
  PressureSystem sys = assemble_pressure(grid, liquid_phi, fractions, velocity, dt, density, split, wall);
  add_wall_inflow(sys, grid, inflow);
  std::vector<Real> further;
  if (!regions) regions = &further;
  const linsolve::Report report = solve_pressure(sys, settings, pressure, regions);
  apply_pressure(grid, sys.active, liquid_phi, fractions, pressure, dt, density, velocity, valid, split, *regions,
                 pieces);
  return report;
}

Real weighted_divergence(const grid::MacGrid& grid, const cutcell::FaceFractions& fractions,
                         const grid::MacVelocity& velocity, const Vec3i& c) {
  Real div = 0;
  for (int a = 0; a < 3; ++a) {
    Vec3i hi = c;
    hi[a] += 1;
    div += fractions[a](hi) * velocity[a](hi) - fractions[a](c) * velocity[a](c);
  }
  return div / grid.dx;
}

}  // namespace fsicut::fluid
