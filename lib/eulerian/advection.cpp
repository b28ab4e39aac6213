#include "lib/eulerian/advection.hpp"

#include <Eigen/QR>
#include <utility>

#include "lib/core/parallel.hpp"

namespace fsicut::eulerian {

namespace {

// How far (in nodes, per axis) the affine fit looks for valid nodes.
constexpr int FIT_RADIUS = 2;
// Relative pivot threshold under which the fit's design matrix counts as
// rank-deficient (the valid nodes nearly coplanar): the mean is used then.
constexpr Real FIT_RANK_THRESHOLD = 1e-6;
constexpr Index MIN_PARALLEL_NODES = 256;

bool in_grid(const grid::MacGrid& grid, const Vec3i& c) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] > grid.resolution[a]) return false;
  return true;
}

bool touches_valid(const grid::MacGrid& grid, const std::vector<char>& valid, const Vec3i& c) {
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const Vec3i n = c + Vec3i(dx, dy, dz);
        if (in_grid(grid, n) && valid[node_index(grid, n)]) return true;
      }
  return false;
}

// The affine fit by its normal equations, summed in place: the design's
// columns (1, offset) hold small integers, so A^T A is exact and singular
// exactly when the valid nodes are coplanar; its pivoted QR then finds the
// rank with the square of the design's threshold. Why not a QR of the
// design: the per-node heap vectors and the 125 x 4 factorization made the
// fits most of the extrapolation's time.
Vec3 fitted_value(const grid::MacGrid& grid, const NodeField& field, const std::vector<char>& valid, const Vec3i& c) {
  Eigen::Matrix4d normal = Eigen::Matrix4d::Zero();
  Eigen::Matrix<Real, 4, 3> moments = Eigen::Matrix<Real, 4, 3>::Zero();
  for (int dz = -FIT_RADIUS; dz <= FIT_RADIUS; ++dz)
    for (int dy = -FIT_RADIUS; dy <= FIT_RADIUS; ++dy)
      for (int dx = -FIT_RADIUS; dx <= FIT_RADIUS; ++dx) {
        const Vec3i n = c + Vec3i(dx, dy, dz);
        if (!in_grid(grid, n) || !valid[node_index(grid, n)]) continue;
        const Eigen::Vector4d row(1, dx, dy, dz);
        normal.noalias() += row * row.transpose();
        moments.noalias() += row * node_value(field, node_index(grid, n)).transpose();
      }
  const Real count = normal(0, 0);
  const Vec3 mean = moments.row(0).transpose() / count;
  if (count < 4) return mean;
  Eigen::ColPivHouseholderQR<Eigen::Matrix4d> qr(normal);
  qr.setThreshold(FIT_RANK_THRESHOLD * FIT_RANK_THRESHOLD);
  if (qr.rank() < 4) return mean;
  const Eigen::Matrix<Real, 4, 3> coefficients = qr.solve(moments);
  return coefficients.row(0).transpose();
}

}  // namespace

void extrapolate(const grid::MacGrid& grid, NodeField& field, std::vector<char>& valid, int layers) {
  // The ring can only lie in the box of the valid nodes grown by one node per
  // layer: scanning that box, not the grid, is what keeps a small solid in a
  // large box cheap (a ball 19 cells across in a 64 x 75 x 64 smoke box: the
  // grid scan was 9 % of the Ball benchmark's profile).
  const Index n = node_count(grid);
  Vec3i lo = grid.resolution, hi = Vec3i::Constant(-1);
  for (Index node = 0; node < n; ++node)
    if (valid[node]) {
      const Vec3i c = node_coord(grid, node);
      lo = lo.cwiseMin(c);
      hi = hi.cwiseMax(c);
    }
  if ((hi.array() < 0).any()) return;
  std::vector<char> in_ring(static_cast<std::size_t>(n), 0);
  for (int layer = 0; layer < layers; ++layer) {
    lo = (lo - Vec3i::Ones()).cwiseMax(Vec3i::Zero());
    hi = (hi + Vec3i::Ones()).cwiseMin(grid.resolution);
    parallel_for(0, static_cast<Index>(hi.z() - lo.z() + 1), [&](Index dz) {
      const int k = lo.z() + static_cast<int>(dz);
      for (int j = lo.y(); j <= hi.y(); ++j)
        for (int i = lo.x(); i <= hi.x(); ++i) {
          const Index node = node_index(grid, Vec3i(i, j, k));
          in_ring[node] = !valid[node] && touches_valid(grid, valid, Vec3i(i, j, k));
        }
    });
    std::vector<Index> ring;
    for (int k = lo.z(); k <= hi.z(); ++k)
      for (int j = lo.y(); j <= hi.y(); ++j)
        for (int i = lo.x(); i <= hi.x(); ++i) {
          const Index node = node_index(grid, Vec3i(i, j, k));
          if (in_ring[node]) ring.push_back(node);
        }
    if (ring.empty()) return;
    std::vector<Vec3> values(ring.size());
    parallel_for_from(MIN_PARALLEL_NODES, static_cast<Index>(ring.size()),
                      [&](Index r) { values[r] = fitted_value(grid, field, valid, node_coord(grid, ring[r])); });
    for (std::size_t r = 0; r < ring.size(); ++r) {
      field.segment<3>(3 * ring[r]) = values[r];
      valid[ring[r]] = 1;
    }
  }
}

void advect(const grid::MacGrid& grid, NodeField& field, const NodeField& velocity, Real dt, std::vector<char>& valid) {
  const Index n = node_count(grid);
  NodeField out = field;
  std::vector<char> still(valid);
  parallel_for_from(MIN_PARALLEL_NODES, n, [&](Index node) {
    if (!valid[node]) return;
    const Vec3 x = grid.node_position(0, 0, 0) + grid.dx * node_coord(grid, node).cast<Real>();
    const Vec3 mid = x - 0.5 * dt * node_value(velocity, node);
    const Vec3 back = x - dt * interpolate(grid, velocity, mid);
    Vec3 xi;
    const Vec3i cell = locate(grid, back, xi);
    for (int q = 0; q < CORNERS; ++q)
      if (!valid[corner_node(grid, cell, q)]) {
        still[node] = 0;
        return;
      }
    out.segment<3>(3 * node) = interpolate(grid, field, back);
  });
  field = std::move(out);
  valid = std::move(still);
}

}  // namespace fsicut::eulerian
