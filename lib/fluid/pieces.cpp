#include "lib/fluid/pieces.hpp"

#include <algorithm>
#include <cmath>

#include "lib/fluid/velocity.hpp"

namespace fsicut::fluid {
namespace {

Index linear(const Vec3i& shape, const Vec3i& c) {
  return c.x() + static_cast<Index>(shape.x()) * (c.y() + static_cast<Index>(shape.y()) * c.z());
}

}  // namespace

const std::vector<Real>* PieceVelocities::find(int axis, Index face) const {
  const auto it = faces[axis].find(face);
  return it == faces[axis].end() ? nullptr : &it->second;
}

void release_nearly_closed(const cutcell::FaceFractions& fractions, Real nearly_closed, PieceVelocities& pieces) {
  for (int a = 0; a < 3; ++a)
    for (auto it = pieces.faces[a].begin(); it != pieces.faces[a].end();)
      it = fractions[a][it->first] < nearly_closed ? pieces.faces[a].erase(it) : std::next(it);
}

Vec3 max_piece_speed(const PieceVelocities& pieces) {
  Vec3 m = Vec3::Zero();
  for (int a = 0; a < 3; ++a)
    for (const auto& [face, v] : pieces.faces[a])
      for (const Real x : v) m[a] = std::max(m[a], std::abs(x));
  return m;
}

int SidesOf::operator()(Index cell) {
  if (flow_.split->count(cell) < 2) return ANY_REGION;
  for (const auto& [c, r] : known_)
    if (c == cell) return r;
  const int r = flow_.region_of(cell, x_);
  known_.emplace_back(cell, r);
  return r;
}

Vec3 velocity_beside_walls(const grid::MacGrid& grid, const grid::MacVelocity& u, const Vec3& x,
                           const Vec3i& cell, std::uint32_t reach, const SplitFlow& flow, SidesOf& sides) {
  const Vec3i cells = grid.cell_shape();
  Vec3 v;
  for (int a = 0; a < 3; ++a) {
    v[a] = grid::interpolate_samples(grid, u[a], grid::face_sampling(a), x, [&](const Vec3i& f, Real& value) {
      const Vec3i low = f - Vec3i::Unit(a);
      if (!reaches(cells, cell, reach, f) && !reaches(cells, cell, reach, low)) return false;
      const Index idx = u[a].index(f.x(), f.y(), f.z());
      const std::vector<cutcell::FacePiece>* pieces = flow.split->pieces(a, idx);
      if (!pieces) return true;
      // A face on the grid's boundary has no pieces, so both cells exist.
      const int rl = sides(linear(cells, low)), rh = sides(linear(cells, f));
      const std::vector<Real>* set = flow.pieces ? flow.pieces->find(a, idx) : nullptr;
      Real sum = 0, weight = 0;
      for (std::size_t k = 0; k < pieces->size(); ++k) {
        const cutcell::FacePiece& p = (*pieces)[k];
        if ((rl != SidesOf::ANY_REGION && p.low != rl) || (rh != SidesOf::ANY_REGION && p.high != rh)) continue;
        sum += p.fraction * (set ? (*set)[k] : value);
        weight += p.fraction;
      }
      if (!(weight > 0)) return false;
      value = sum / weight;
      return true;
    });
  }
  return v;
}

}  // namespace fsicut::fluid
