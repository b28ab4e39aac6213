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
constexpr Index MIN_PARALLEL_POINTS = 256;

// The smallest |det F_p Xbar| / dx^3 taken as a map (as elasticity.cpp).
constexpr Real MIN_MATERIAL_DET = 1e-12;

// The 8 material nodes around x_bar and their trilinear weights.
struct NodeWeights {
  std::array<Vec3i, 8> node;
  std::array<Real, 8> weight;
};

NodeWeights node_weights(const PlasticStrain& plastic, const Vec3& x_bar) {
  const grid::Stencil s = grid::stencil(plastic.grid, plastic.excess.size(), grid::Sampling::node, x_bar);
  NodeWeights w;
  for (int q = 0; q < 8; ++q) {
    const Vec3i bit = corner_offset(q);
    w.node[q] = Vec3i(bit.x() ? s.hi.x() : s.lo.x(), bit.y() ? s.hi.y() : s.lo.y(), bit.z() ? s.hi.z() : s.lo.z());
    w.weight[q] = 1;
    for (int a = 0; a < 3; ++a) w.weight[q] *= bit[a] ? s.t[a] : 1 - s.t[a];
  }
  return w;
}

// F scaled to det F = 1 (F itself when det F <= 0, which no stored F_p reaches).
Mat3 unimodular(const Mat3& F) {
  const Real det = F.determinant();
  return det > 0 && det != 1 ? Mat3(F / std::cbrt(det)) : F;
}

// A Gauss point of the solid after the displacement update.
struct PlasticPoint {
  Vec3 x_bar;
  Real fraction = 0;   // theta_g
  Mat3 change;         // F_p,new - F_p,old
  bool flowed = false;
};

std::vector<PlasticPoint> solid_points(const grid::MacGrid& grid, const NodeField& u, const std::vector<char>& valid,
                                       const MaterialShape& shape, std::vector<std::pair<Vec3i, int>>& where) {
  std::vector<PlasticPoint> points;
  for (int k = 0; k < grid.resolution.z(); ++k)
    for (int j = 0; j < grid.resolution.y(); ++j)
      for (int i = 0; i < grid.resolution.x(); ++i) {
        const Vec3i cell(i, j, k);
        if (!corners_valid(grid, valid, cell)) continue;
        for (int g = 0; g < GAUSS_POINTS; ++g) {
          PlasticPoint p;
          p.x_bar = material_point(grid, u, cell, gauss_point(g));
          p.fraction = fill_fraction(material_distance(shape, p.x_bar), grid.dx);
          if (p.fraction <= 0) continue;
          points.push_back(p);
          where.emplace_back(cell, g);
        }
      }
  return points;
}

}  // namespace

PlasticStrain make_plastic_strain(const MaterialShape& shape, const PlasticSettings& settings) {
  PlasticStrain p;
  p.settings = settings;
  p.grid = shape.grid;
  p.excess.resize(shape.grid.node_shape(), Mat3::Zero());
  return p;
}

Mat3 plastic_deformation(const PlasticStrain& plastic, const Vec3& x_bar) {
  const NodeWeights w = node_weights(plastic, x_bar);
  Mat3 excess = Mat3::Zero();
  for (int q = 0; q < 8; ++q) excess += w.weight[q] * plastic.excess(w.node[q]);
  return unimodular(Mat3::Identity() + excess);
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
  std::vector<PlasticPoint> points = solid_points(grid, u, valid, shape, where);
  parallel_for_from(MIN_PARALLEL_POINTS, static_cast<Index>(points.size()), [&](Index n) {
    PlasticPoint& p = points[n];
    const Mat3 Fp = plastic_deformation(plastic, p.x_bar);
    // F_e = F F_p^-1 = dx (F_p Xbar)^-1 (deformation.hpp); no throw inside
    // the parallel loop: a collapsed point does not flow, and the next
    // step's elasticity reports it.
    const Mat3 relaxed = Fp * material_jacobian(grid, u, where[n].first, gauss_point(where[n].second));
    if (!(std::abs(relaxed.determinant()) > MIN_MATERIAL_DET * grid.dx * grid.dx * grid.dx)) return;
    const Mat3 flow = plastic_flow(grid.dx * relaxed.inverse(), plastic.settings);
    p.flowed = flow != Mat3::Identity();
    if (p.flowed) p.change = flow * Fp - Fp;
  });
  if (std::none_of(points.begin(), points.end(), [](const PlasticPoint& p) { return p.flowed; })) return;
  // Serial: neighbouring points add into the same nodes.
  grid::Array3<Mat3> change(plastic.excess.size(), Mat3::Zero());
  grid::Array3<Real> weight(plastic.excess.size(), 0.0);
  grid::Array3<char> touched(plastic.excess.size(), 0);
  for (const PlasticPoint& p : points) {
    const NodeWeights w = node_weights(plastic, p.x_bar);
    for (int q = 0; q < 8; ++q) {
      weight(w.node[q]) += w.weight[q] * p.fraction;
      if (!p.flowed || w.weight[q] == 0) continue;
      change(w.node[q]) += w.weight[q] * p.fraction * p.change;
      touched(w.node[q]) = 1;
    }
  }
  for (Index n = 0; n < plastic.excess.count(); ++n) {
    if (!touched[n] || !(weight[n] > 0)) continue;
    const Mat3 Fp = unimodular(Mat3::Identity() + plastic.excess[n] + change[n] / weight[n]);
    plastic.excess[n] = Fp - Mat3::Identity();
  }
}

Real max_plastic_strain(const PlasticStrain& plastic, const MaterialShape& shape) {
  Real worst = 0;
  for (Index n = 0; n < plastic.excess.count(); ++n) {
    const Vec3 x_bar = plastic.grid.origin + plastic.grid.dx * plastic.excess.coord(n).cast<Real>();
    if (material_distance(shape, x_bar) < 0) worst = std::max(worst, plastic.excess[n].norm());
  }
  return worst;
}

}  // namespace fsicut::eulerian
