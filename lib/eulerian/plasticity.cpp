#include "lib/eulerian/plasticity.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>

#include "lib/core/parallel.hpp"
#include "lib/eulerian/corotated.hpp"
#include "lib/eulerian/deformation.hpp"
#include "lib/eulerian/elasticity.hpp"

namespace fsicut::eulerian {

namespace {

// Loops below this many points run serially (shorter than an OpenMP fork).
constexpr Index MIN_PARALLEL_PLASTIC_POINTS = 256;

// The smallest |det F_p Xbar| / dx^3 taken as a map (as elasticity.cpp).
constexpr Real MIN_PLASTIC_MATERIAL_DET = 1e-12;

// Material cells whose centre lies within this many cells of the solid keep
// samples. Why 2: a point with theta > 0 has material distance < dx/4 at its
// x_bar, the centre of x_bar's cell lies within sqrt(3)/2 dx of it, and the
// trilinear distance changes by at most sqrt(3) per unit length: < 1.75 dx.
constexpr Real KEPT_CELLS = 2;

// F scaled to det F = 1 (F itself when det F <= 0, which no stored F_p reaches).
Mat3 unimodular(const Mat3& F) {
  const Real det = F.determinant();
  return det > 0 && det != 1 ? Mat3(F / std::cbrt(det)) : F;
}

// A Gauss point of the solid after the displacement update.
struct PlasticPoint {
  Index sample = NO_SAMPLES;  // the sample it reads
  Real fraction = 0;          // theta_p
  Mat3 change = Mat3::Zero();  // F_p,new - F_p,old
  bool flowed = false;
};

std::vector<PlasticPoint> solid_points(const PlasticStrain& plastic, const grid::MacGrid& grid, const NodeField& u,
                                       const std::vector<char>& valid, const MaterialShape& shape,
                                       std::vector<std::pair<Vec3i, int>>& where) {
  std::vector<PlasticPoint> points;
  for (int k = 0; k < grid.resolution.z(); ++k)
    for (int j = 0; j < grid.resolution.y(); ++j)
      for (int i = 0; i < grid.resolution.x(); ++i) {
        const Vec3i cell(i, j, k);
        if (!corners_valid(grid, valid, cell)) continue;
        for (int g = 0; g < GAUSS_POINTS; ++g) {
          const Vec3 x_bar = material_point(grid, u, cell, gauss_point(g));
          PlasticPoint p;
          p.fraction = fill_fraction(material_distance(shape, x_bar), grid.dx);
          if (p.fraction <= 0) continue;
          p.sample = plastic_sample(plastic, x_bar);
          // Unreachable by KEPT_CELLS; such a point would read I and write nothing.
          if (p.sample == NO_SAMPLES) continue;
          points.push_back(p);
          where.emplace_back(cell, g);
        }
      }
  return points;
}

// The material position of sample g of cell `cell` [m].
Vec3 sample_position(const PlasticStrain& plastic, const Vec3i& cell, int g) {
  return plastic.grid.origin + plastic.grid.dx * (cell.cast<Real>() + gauss_point(g));
}

}  // namespace

PlasticStrain make_plastic_strain(const MaterialShape& shape, const PlasticSettings& settings) {
  PlasticStrain p;
  p.settings = settings;
  p.grid = shape.grid;
  p.first.resize(shape.grid.cell_shape(), NO_SAMPLES);
  Index kept = 0;
  for (Index c = 0; c < p.first.count(); ++c) {
    const Vec3i cell = p.first.coord(c);
    const Vec3 centre = shape.grid.position(grid::Sampling::cell, cell.x(), cell.y(), cell.z());
    if (material_distance(shape, centre) >= KEPT_CELLS * shape.grid.dx) continue;
    p.first[c] = kept;
    kept += GAUSS_POINTS;
  }
  p.samples.assign(static_cast<std::size_t>(kept), Mat3::Identity());
  return p;
}

Index plastic_sample(const PlasticStrain& plastic, const Vec3& x_bar) {
  Vec3 xi;
  const Vec3i cell = locate(plastic.grid, x_bar, xi);
  const Index first = plastic.first(cell);
  if (first == NO_SAMPLES) return NO_SAMPLES;
  // Gauss point g has bit a set where its coordinate a is 1/2 + 1/(2 sqrt 3) (q1.hpp).
  const int g = (xi.x() >= 0.5 ? 1 : 0) | (xi.y() >= 0.5 ? 2 : 0) | (xi.z() >= 0.5 ? 4 : 0);
  return first + g;
}

Mat3 plastic_deformation(const PlasticStrain& plastic, const Vec3& x_bar) {
  const Index s = plastic_sample(plastic, x_bar);
  return s == NO_SAMPLES ? Mat3(Mat3::Identity()) : plastic.samples[static_cast<std::size_t>(s)];
}

Real deviatoric_strain(const Vec3& s) {
  const Vec3 e = s.array().log().matrix();
  return (e - Vec3::Constant(e.mean())).norm();
}

Mat3 plastic_flow(const Mat3& elastic, const PlasticSettings& settings) {
  const SignedSvd svd = signed_svd(elastic);
  if (!(svd.s.minCoeff() > 0)) return Mat3::Identity();
  const Vec3 log_s = svd.s.array().log().matrix();
  const Vec3 e = log_s - Vec3::Constant(log_s.mean());
  const Real strain = e.norm();
  if (!(strain > settings.yield)) return Mat3::Identity();
  const Real gamma = std::min(settings.flow * (strain - settings.yield) / strain, Real(1));
  return svd.V * (gamma * e).array().exp().matrix().asDiagonal() * svd.V.transpose();
}

void update_plastic_strain(PlasticStrain& plastic, const grid::MacGrid& grid, const NodeField& u,
                           const std::vector<char>& valid, const MaterialShape& shape) {
  std::vector<std::pair<Vec3i, int>> where;
  std::vector<PlasticPoint> points = solid_points(plastic, grid, u, valid, shape, where);
  parallel_for_from(MIN_PARALLEL_PLASTIC_POINTS, static_cast<Index>(points.size()), [&](Index n) {
    PlasticPoint& p = points[n];
    const Mat3& Fp = plastic.samples[static_cast<std::size_t>(p.sample)];
    // F_e = F F_p^-1 = dx (F_p Xbar)^-1 (deformation.hpp); no throw inside
    // the parallel loop: a collapsed point does not flow, and the next
    // step's elasticity reports it.
    const Mat3 relaxed = Fp * material_jacobian(grid, u, where[n].first, gauss_point(where[n].second));
    if (!(std::abs(relaxed.determinant()) > MIN_PLASTIC_MATERIAL_DET * grid.dx * grid.dx * grid.dx)) return;
    const Mat3 flow = plastic_flow(grid.dx * relaxed.inverse(), plastic.settings);
    p.flowed = flow != Mat3::Identity();
    if (p.flowed) p.change = flow * Fp - Fp;
  });
  if (std::none_of(points.begin(), points.end(), [](const PlasticPoint& p) { return p.flowed; })) return;
  // Serial: several points may read one sample.
  std::vector<Mat3> change(plastic.samples.size(), Mat3::Zero());
  std::vector<Real> weight(plastic.samples.size(), 0.0);
  std::vector<char> touched(plastic.samples.size(), 0);
  for (const PlasticPoint& p : points) {
    const auto s = static_cast<std::size_t>(p.sample);
    weight[s] += p.fraction;
    if (!p.flowed) continue;
    change[s] += p.fraction * p.change;
    touched[s] = 1;
  }
  for (std::size_t s = 0; s < plastic.samples.size(); ++s)
    if (touched[s]) plastic.samples[s] = unimodular(plastic.samples[s] + change[s] / weight[s]);
}

Real max_plastic_strain(const PlasticStrain& plastic, const MaterialShape& shape) {
  Real worst = 0;
  for (Index c = 0; c < plastic.first.count(); ++c) {
    const Index first = plastic.first[c];
    if (first == NO_SAMPLES) continue;
    for (int g = 0; g < GAUSS_POINTS; ++g)
      if (material_distance(shape, sample_position(plastic, plastic.first.coord(c), g)) < 0)
        worst = std::max(worst, (plastic.samples[static_cast<std::size_t>(first + g)] - Mat3::Identity()).norm());
  }
  return worst;
}

}  // namespace fsicut::eulerian
