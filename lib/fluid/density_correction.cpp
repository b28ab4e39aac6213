#include "lib/fluid/density_correction.hpp"

#include <algorithm>
#include <cmath>

#include "lib/core/parallel.hpp"
#include "lib/fluid/pressure_projection.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/natural_fraction.hpp"

namespace fsicut::fluid {
namespace {

// rho in the liquid cells (phi < 0, centre outside the solids), and its mean
// over the liquid cells of each one's 3 x 3 x 3 block; 0 elsewhere. Why the
// mean decides where to correct: the seeding's jitter alone leaves rho within
// +-6 % of 1 cell by cell (a 16^3 pool), its means within +-1.2 %, while the
// packing that shrinks the liquid is a few % over many cells.
// The mean of value(n) over the cells n of each included cell's 3 x 3 x 3
// block that are included; 0 at the cells not included.
template <class Included, class Value>
grid::Array3<Real> block_mean(const Vec3i& size, const Included& included, const Value& value) {
  grid::Array3<Real> mean(size, 0);
  parallel_for(0, mean.count(), [&](Index idx) {
    if (!included(idx)) return;
    const Vec3i c = mean.coord(idx);
    Real sum = 0;
    int n = 0;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const Vec3i b = c + Vec3i(di, dj, dk);
          if (!mean.inside(b.x(), b.y(), b.z())) continue;
          const Index nb = mean.index(b.x(), b.y(), b.z());
          if (!included(nb)) continue;
          sum += value(nb);
          ++n;
        }
    mean[idx] = sum / n;
  });
  return mean;
}

struct Fractions {
  grid::Array3<Real> cell;  // rho, 0 outside the liquid and in solids
  grid::Array3<Real> mean;  // its mean over the liquid cells of the 3 x 3 x 3 block
};
Fractions fractions(const Liquid& l) {
  const grid::MacGrid& g = l.grid;
  Fractions f{grid::Array3<Real>(g.cell_shape(), 0), grid::Array3<Real>(g.cell_shape(), 0)};
  grid::Array3<Real>& rho = f.cell;
  const Real per_metre = levelset::COLOUR_KERNEL_CENTRE / g.dx;
  parallel_for(0, rho.count(), [&](Index idx) {
    const Vec3i c = rho.coord(idx);
    // A centre inside a solid has an extended phi, not the particles'.
    if (l.liquid_phi[idx] < 0 && levelset::solid_phi_at_cell(l.solid_phi, c.x(), c.y(), c.z()) >= 0)
      rho[idx] = 0.5 - l.liquid_phi[idx] * per_metre;
  });
  const auto liquid = [&](Index idx) { return rho[idx] > 0; };
  f.mean = block_mean(rho.size(), liquid, [&](Index idx) { return rho[idx]; });
  return f;
}

// Cells within DEEP_CELLS cells (Chebyshev) of an air cell (phi >= 0): the
// colour kernel (1.5 cells) of their blocks' cells may reach the free surface,
// so their rho is below 1 even at the seeding density.
constexpr int DEEP_CELLS = 2;
grid::Array3<char> near_air(const grid::Array3<Real>& phi) {
  grid::Array3<char> mask(phi.size(), 0);
  parallel_for(0, phi.count(), [&](Index idx) { mask[idx] = !(phi[idx] < 0); });
  grid::dilate(mask, DEEP_CELLS);
  return mask;
}

// What each liquid cell's rho should read as seeded: 1 deep in the liquid,
// rho_ref (levelset/natural_fraction.hpp) within DEEP_CELLS of the air, 0
// where neither applies (near solids and thin walls within DEEP_CELLS of the
// air, where the block-mean rule of step 2 acts instead); `beside` flags the
// cells beside the surface, whose rho_ref is fitted to their own rho: they
// are corrected with the rest but do not start a correction.
struct Reference {
  grid::Array3<Real> ref;
  grid::Array3<char> beside;
};
Reference reference(const Liquid& l, const grid::Array3<Real>& rho, const grid::Array3<char>& surface) {
  Reference r{grid::Array3<Real>(rho.size(), 0), grid::Array3<char>(rho.size(), 0)};
  std::vector<Index> band;
  for (Index idx = 0; idx < rho.count(); ++idx) {
    if (!(rho[idx] > 0)) continue;
    if (surface[idx]) band.push_back(idx);
    else r.ref[idx] = 1;
  }
  if (band.empty()) return r;
  // rho at every centre, air included, for the outline.
  grid::Array3<Real> all(rho.size(), 0);
  const Real per_metre = levelset::COLOUR_KERNEL_CENTRE / l.grid.dx;
  parallel_for(0, all.count(), [&](Index idx) { all[idx] = std::clamp<Real>(0.5 - l.liquid_phi[idx] * per_metre, 0, 1); });
  const levelset::NaturalFraction natural = levelset::natural_fraction(l.grid, all, l.solid_phi, l.reach, band);
  for (std::size_t n = 0; n < band.size(); ++n)
    if (natural.ref[n] > 0) {
      r.ref[band[n]] = natural.ref[n];
      r.beside[band[n]] = natural.beside[n];
    }
  return r;
}

// Step 2: the target divergence per cell, all 0 when no cell's block mean is
// off by more than DENSITY_TRIGGER; counts those cells.
grid::Array3<Real> target_divergence(const Liquid& l, DensityCorrectionReport& report) {
  const Fractions f = fractions(l);
  const grid::Array3<Real>& rho = f.cell;
  const grid::Array3<Real>& mean = f.mean;
  const grid::Array3<char> surface = near_air(l.liquid_phi);
  const Reference reference_of = reference(l, rho, surface);
  const grid::Array3<Real>& ref = reference_of.ref;
  const grid::Array3<char>& beside = reference_of.beside;
  auto checked = [&](Index idx) { return ref[idx] > 0 && !beside[idx]; };
  // The block mean of rho - ref over the cells with a reference not beside the surface.
  const grid::Array3<Real> excess = block_mean(rho.size(), checked, [&](Index idx) { return rho[idx] - ref[idx]; });
  grid::Array3<char> kind(mean.size(), 0);  // 1 over-dense, 2 under-dense
  parallel_for(0, mean.count(), [&](Index idx) {
    if (!(mean[idx] > 0) || beside[idx]) return;
    if (ref[idx] > 0) {
      if (excess[idx] > DENSITY_TRIGGER) kind[idx] = 1;
      if (excess[idx] < -DENSITY_TRIGGER) kind[idx] = 2;
    } else if (mean[idx] > 1 + DENSITY_TRIGGER) {
      kind[idx] = 1;
    }
  });
  report.over_dense = std::count(kind.data().begin(), kind.data().end(), 1);
  report.under_dense = std::count(kind.data().begin(), kind.data().end(), 2);
  grid::Array3<Real> target(mean.size(), 0);
  if (report.over_dense + report.under_dense == 0) return target;
  parallel_for(0, rho.count(), [&](Index idx) {
    if (ref[idx] > 0) target[idx] = rho[idx] - ref[idx];
    else if (mean[idx] > 1) target[idx] = mean[idx] - 1;
  });
  return target;
}

// Step 4: every particle shifted by the face displacements `d` [m] at its
// position, at most DENSITY_MAX_SHIFT_CELLS cells.
void shift_particles(Liquid& l, const grid::MacVelocity& d, DensityCorrectionReport& report) {
  const grid::MacGrid& g = l.grid;
  const Real max_shift = DENSITY_MAX_SHIFT_CELLS * g.dx;
  const Vec3 lo = g.origin, hi = g.max();
  const bool cut = l.reach.cells.count() > 0;
  std::vector<Real> shift(static_cast<std::size_t>(l.particles.cols()), 0);
  parallel_for(0, l.particles.cols(), [&](Index p) {
    const Vec3 x = l.particles.col(p);
    Vec3 s;
    if (cut) {
      const Vec3i c = g.cell_of(x);
      s = velocity_within_reach(g, d, x, c, l.reach.cells(c));
    } else {
      s = grid::interpolate_velocity(g, d, x);
    }
    const Real norm = s.norm();
    if (!(norm > 0)) return;
    if (norm > max_shift) s *= max_shift / norm;
    l.particles.col(p) = (x + s).cwiseMax(lo).cwiseMin(hi);
    shift[static_cast<std::size_t>(p)] = std::min(norm, max_shift);
  });
  for (Real s : shift)
    if (s > 0) {
      ++report.moved;
      report.max_shift = std::max(report.max_shift, s);
    }
}

}  // namespace

bool density_correction_due(Real time, Real dt) {
  return std::floor((time + dt) / DENSITY_INTERVAL) > std::floor(time / DENSITY_INTERVAL) || dt >= DENSITY_INTERVAL;
}

DensityCorrectionReport correct_density(Liquid& l) {
  DensityCorrectionReport report;
  report.solve = linsolve::nothing_to_solve();
  if (l.particles.cols() == 0) return report;
  const grid::Array3<Real> target = target_divergence(l, report);
  if (report.over_dense + report.under_dense == 0) return report;

  grid::MacVelocity& d = l.scratch;
  for (int a = 0; a < 3; ++a) d[a].fill(0);
  // dt = density = 1: the matrix is the cut-cell Laplacian, the face update d = -grad q.
  // Cells a thin solid splits (cutcell/split_cells.hpp) keep their regions
  // apart and are left as they are (target 0): their particle count mixes
  // both sides of the wall.
  PressureSystem system = assemble_pressure(l.grid, l.liquid_phi, l.fractions, d, 1, 1, l.split);
  parallel_for(0, system.active.count(), [&](Index r) {
    const Index cell = system.active.cells[static_cast<std::size_t>(r)];
    system.rhs[r] = l.split.count(cell) >= 2 ? 0 : target[cell];
  });
  if (!(system.rhs.cwiseAbs().maxCoeff() > 0)) return report;  // the qualifying cells have no open face
  ProjectionSettings settings;
  settings.tolerance = DENSITY_SOLVE_TOLERANCE;
  settings.max_iterations = DENSITY_MAX_ITERATIONS;
  settings.allow_unconverged = true;
  settings.preconditioner = l.projection.preconditioner;
  grid::Array3<Real> q(l.grid.cell_shape(), 0);
  std::vector<Real> regions;
  report.solve = solve_pressure(system, settings, q, &regions);
  FaceFlags set;
  apply_pressure(l.grid, system.active, l.liquid_phi, l.fractions, q, 1, 1, d, set, l.split, regions);
  shift_particles(l, d, report);
  return report;
}

}  // namespace fsicut::fluid
