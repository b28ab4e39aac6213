#include "lib/fluid/viscosity.hpp"

#include <algorithm>
#include <vector>

#include "lib/core/parallel.hpp"

namespace fsicut::fluid {
namespace {

// What a face is to the viscous system (see the header); `outside`: beyond an
// open side, where no liquid reaches (its outermost cell layer is air).
enum class FaceKind { free, wall, ghost, closed, outside };

struct FaceRef {
  int axis = 0;
  Vec3i index{0, 0, 0};
};

// A stress sample: strain sum_k sign_k u(face_k) / dx over two differences
// (hi - lo), weight K [Pa s] (2 mu V_c or mu V_e).
struct StressSample {
  std::array<FaceRef, 4> face;  // hi, lo of the first difference, then of the second
  int pairs = 1;
  Real weight = 0;
};

// A sample's faces resolved: unknown index (or -1) with its coefficient [1/m],
// and the Dirichlet part of its strain [1/s].
struct ResolvedSample {
  std::array<int, 4> unknown{-1, -1, -1, -1};
  std::array<Real, 4> coef{0, 0, 0, 0};
  Real known = 0;
};

struct Classifier {
  const grid::MacGrid& grid;
  const FaceFractions& open;
  const std::array<bool, 6>& open_sides;

  FaceKind kind(const FaceRef& f) const {
    const Vec3i shape = grid.face_shape(f.axis);
    for (int b = 0; b < 3; ++b) {
      if (f.index[b] < 0) return open_sides[2 * b] ? FaceKind::outside : FaceKind::ghost;
      if (f.index[b] >= shape[b]) return open_sides[2 * b + 1] ? FaceKind::outside : FaceKind::ghost;
    }
    const int i = f.index[f.axis];
    if ((i == 0 && !open_sides[2 * f.axis]) || (i == grid.resolution[f.axis] && !open_sides[2 * f.axis + 1]))
      return FaceKind::wall;
    return open[f.axis](f.index) > 0 ? FaceKind::free : FaceKind::closed;
  }
};

// The three diagonal samples of cell c and the shear sample of edge e of axis
// a (the other two axes b, c: gamma = du_b/dx_c + du_c/dx_b).
StressSample diagonal_sample(const Vec3i& c, int a, Real weight) {
  StressSample s;
  s.face[0] = {a, c + Vec3i::Unit(a)};
  s.face[1] = {a, c};
  s.weight = weight;
  return s;
}

StressSample shear_sample(const Vec3i& e, int a, Real weight) {
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  StressSample s;
  s.face[0] = {b, e};
  s.face[1] = {b, e - Vec3i::Unit(c)};
  s.face[2] = {c, e};
  s.face[3] = {c, e - Vec3i::Unit(b)};
  s.pairs = 2;
  s.weight = weight;
  return s;
}

bool contains(const Vec3i& shape, const Vec3i& i) {
  return (i.array() >= 0).all() && (i.array() < shape.array()).all();
}

// The stress samples with liquid (weight > 0) that touch face f, none
// reaching beyond an open side: the diagonal ones of the cells on its two
// sides and the shear ones of the four edges along it (face (a, f) is in the
// sample of edge f and of edge f + e_b of the axis other than a and b).
// Returns how many, written to `out`.
int samples_of(const Classifier& classify, const LiquidFractions& fractions, Real viscosity, const FaceRef& f,
               std::array<StressSample, 6>& out) {
  const grid::MacGrid& grid = classify.grid;
  int n = 0;
  const auto keep = [&](const StressSample& s) {
    if (!(s.weight > 0)) return;
    for (int k = 0; k < 2 * s.pairs; ++k)
      if (classify.kind(s.face[k]) == FaceKind::outside) return;
    out[n++] = s;
  };
  const int a = f.axis;
  for (const Vec3i& c : {Vec3i(f.index - Vec3i::Unit(a)), f.index})
    if (contains(grid.cell_shape(), c)) keep(diagonal_sample(c, a, 2 * viscosity * fractions.cell(c)));
  for (const int b : {(a + 1) % 3, (a + 2) % 3}) {
    const int edge_axis = 3 - a - b;
    for (const Vec3i& e : {f.index, Vec3i(f.index + Vec3i::Unit(b))})
      if (contains(edge_shape(grid, edge_axis), e))
        keep(shear_sample(e, edge_axis, viscosity * fractions.edge(edge_axis, e)));
  }
  return n;
}

// The solid SDF [m] at a face centre: the mean of the face's four nodes.
Real solid_phi_at_face(const grid::Array3<Real>& solid_phi, const FaceRef& f) {
  const int b = (f.axis + 1) % 3, c = (f.axis + 2) % 3;
  Real sum = 0;
  for (int k = 0; k < 4; ++k) sum += solid_phi(f.index + (k & 1) * Vec3i::Unit(b) + (k >> 1) * Vec3i::Unit(c));
  return sum / 4;
}

struct Assembly {
  const grid::MacGrid& grid;
  const Classifier& classify;
  const grid::Array3<Real>& solid_phi;
  const std::array<grid::Array3<Real>, 3>& dirichlet;  // closed faces' solid velocity [m/s]
  const ViscositySystem& system;

  // theta of the difference between p (free) and q (not), see the header.
  Real theta(const FaceRef& p, const FaceRef& q, FaceKind kq) const {
    if (kq == FaceKind::ghost) return 0.5;
    if (kq == FaceKind::wall || solid_phi.count() == 0) return 1;
    const Real phi_p = solid_phi_at_face(solid_phi, p), phi_q = solid_phi_at_face(solid_phi, q);
    if (!(phi_p > 0 && phi_q <= 0)) return 1;
    return std::clamp(phi_p / (phi_p - phi_q), VISCOUS_THETA_MIN, Real(1));
  }

  Real value(const FaceRef& f, FaceKind k) const { return k == FaceKind::closed ? dirichlet[f.axis](f.index) : 0; }

  ResolvedSample resolve(const StressSample& s) const {
    ResolvedSample r;
    for (int d = 0; d < s.pairs; ++d) {
      const FaceRef &hi = s.face[2 * d], &lo = s.face[2 * d + 1];
      const FaceKind khi = classify.kind(hi), klo = classify.kind(lo);
      const bool free_hi = khi == FaceKind::free, free_lo = klo == FaceKind::free;
      Real scale = 1 / grid.dx;
      if (free_hi && !free_lo) scale /= theta(hi, lo, klo);
      if (free_lo && !free_hi) scale /= theta(lo, hi, khi);
      const FaceRef* ends[2] = {&hi, &lo};
      const FaceKind kinds[2] = {khi, klo};
      for (int k = 0; k < 2; ++k) {
        const Real c = k == 0 ? scale : -scale;
        const FaceRef& f = *ends[k];
        if (kinds[k] == FaceKind::free) {
          r.unknown[2 * d + k] = system.unknown[f.axis](f.index);
          r.coef[2 * d + k] = c;
        } else {
          r.known += c * value(f, kinds[k]);
        }
      }
    }
    return r;
  }
};

// Marks the faces that become unknowns (see the header) and the closed faces
// whose solid velocity the samples read.
void mark_faces(const grid::MacGrid& grid, const LiquidFractions& fractions, const Classifier& classify,
                Real viscosity, std::array<grid::Array3<char>, 3>& used, std::array<grid::Array3<char>, 3>& closed) {
  for (int a = 0; a < 3; ++a) {
    used[a].resize(grid.face_shape(a), 0);
    closed[a].resize(grid.face_shape(a), 0);
    parallel_for(0, used[a].count(), [&](Index n) {
      const FaceRef f{a, used[a].coord(n)};
      const FaceKind kind = classify.kind(f);
      if (kind != FaceKind::free && kind != FaceKind::closed) return;
      std::array<StressSample, 6> samples;
      const bool stressed = samples_of(classify, fractions, viscosity, f, samples) > 0;
      used[a][n] = kind == FaceKind::free && (stressed || fractions.face(a, f.index) > 0);
      closed[a][n] = kind == FaceKind::closed && stressed;
    });
  }
}

// Row u of the system: its entries (column, value), merged and sorted by
// column, and its right-hand side.
struct Row {
  std::array<std::pair<int, Real>, 25> entries;
  int size = 0;
  Real rhs = 0;
};

// The solids' velocity component at the closed faces the samples read.
std::array<grid::Array3<Real>, 3> closed_face_velocity(const grid::MacGrid& grid,
                                                       const std::array<grid::Array3<char>, 3>& closed,
                                                       const SolidVelocity& solid_velocity) {
  std::array<grid::Array3<Real>, 3> out;
  for (int a = 0; a < 3; ++a) {
    out[a].resize(grid.face_shape(a), 0);
    if (!solid_velocity) continue;
    parallel_for(0, out[a].count(), [&](Index n) {
      if (!closed[a][n]) return;
      const Vec3i f = out[a].coord(n);
      out[a][n] = solid_velocity(grid.face_center(a, f.x(), f.y(), f.z()))[a];
    });
  }
  return out;
}

}  // namespace

ViscositySystem assemble_viscosity(const grid::MacGrid& grid, const LiquidFractions& fractions,
                                   const FaceFractions& open, const grid::Array3<Real>& solid_phi, Real viscosity,
                                   Real density, Real dt, const SolidVelocity& solid_velocity,
                                   const grid::MacVelocity& velocity, const std::array<bool, 6>& open_sides) {
  const Classifier classify{grid, open, open_sides};
  std::array<grid::Array3<char>, 3> used, closed;
  mark_faces(grid, fractions, classify, viscosity, used, closed);
  ViscositySystem sys;
  for (int a = 0; a < 3; ++a) {
    sys.unknown[a].resize(grid.face_shape(a), -1);
    for (Index n = 0; n < used[a].count(); ++n)
      if (used[a][n]) {
        sys.unknown[a][n] = static_cast<int>(sys.faces.size());
        sys.faces.emplace_back(a, used[a].coord(n));
      }
  }
  const Index count = static_cast<Index>(sys.faces.size());
  const std::array<grid::Array3<Real>, 3> dirichlet = closed_face_velocity(grid, closed, solid_velocity);
  const Assembly assembly{grid, classify, solid_phi, dirichlet, sys};
  const Real scale = dt / density;
  const auto row = [&](Index u) {
    const auto& [a, f] = sys.faces[static_cast<std::size_t>(u)];
    Row r;
    const Real w = std::max(fractions.face(a, f), MIN_FACE_WEIGHT);
    r.entries[r.size++] = {static_cast<int>(u), w};
    r.rhs = w * velocity[a](f);
    std::array<StressSample, 6> samples;
    const int n = samples_of(classify, fractions, viscosity, {a, f}, samples);
    for (int s = 0; s < n; ++s) {
      const ResolvedSample rs = assembly.resolve(samples[s]);
      const Real k = scale * samples[s].weight;
      const int i = static_cast<int>(std::find(rs.unknown.begin(), rs.unknown.end(), u) - rs.unknown.begin());
      r.rhs -= k * rs.coef[i] * rs.known;
      for (int j = 0; j < 4; ++j)
        if (rs.unknown[j] >= 0) r.entries[r.size++] = {rs.unknown[j], k * rs.coef[i] * rs.coef[j]};
    }
    std::sort(r.entries.begin(), r.entries.begin() + r.size,
              [](const auto& x, const auto& y) { return x.first < y.first; });
    int merged = 0;
    for (int e = 0; e < r.size; ++e)
      if (merged > 0 && r.entries[merged - 1].first == r.entries[e].first) {
        r.entries[merged - 1].second += r.entries[e].second;
      } else {
        r.entries[merged++] = r.entries[e];
      }
    r.size = merged;
    return r;
  };
  // Two passes over the rows, in parallel: their lengths, then their entries
  // into the compressed row storage (each row summed in one fixed order, so
  // the matrix does not depend on the thread count).
  std::vector<int> start(static_cast<std::size_t>(count) + 1, 0);
  parallel_for(0, count, [&](Index u) { start[static_cast<std::size_t>(u) + 1] = row(u).size; });
  for (Index u = 0; u < count; ++u) start[static_cast<std::size_t>(u) + 1] += start[static_cast<std::size_t>(u)];
  sys.matrix.resize(count, count);
  sys.matrix.resizeNonZeros(start.back());
  std::copy(start.begin(), start.end(), sys.matrix.outerIndexPtr());
  sys.rhs.resize(count);
  parallel_for(0, count, [&](Index u) {
    const Row r = row(u);
    for (int e = 0; e < r.size; ++e) {
      sys.matrix.innerIndexPtr()[start[static_cast<std::size_t>(u)] + e] = r.entries[e].first;
      sys.matrix.valuePtr()[start[static_cast<std::size_t>(u)] + e] = r.entries[e].second;
    }
    sys.rhs[u] = r.rhs;
  });
  return sys;
}

linsolve::Report solve_viscosity(const ViscositySystem& system, const linsolve::PcgSettings& settings,
                                 grid::MacVelocity& velocity) {
  if (system.faces.empty()) return linsolve::nothing_to_solve();
  linsolve::Vector x(static_cast<Index>(system.faces.size()));
  for (std::size_t u = 0; u < system.faces.size(); ++u) x[u] = velocity[system.faces[u].first](system.faces[u].second);
  linsolve::Report report = linsolve::solve_pcg(system.matrix, system.rhs, x, settings);
  report.unknowns = static_cast<int>(x.size());
  for (std::size_t u = 0; u < system.faces.size(); ++u) velocity[system.faces[u].first](system.faces[u].second) = x[u];
  return report;
}

}  // namespace fsicut::fluid
