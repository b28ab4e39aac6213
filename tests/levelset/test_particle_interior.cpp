#include <doctest/doctest.h>

#include <vector>

#include "lib/levelset/particle_interior.hpp"

using namespace fsicut;

namespace {

// 8 particles per cell at the sub-cell centres of the cells [lo, hi) (cell size
// `cell`), except `count` particles in the cell `thin`.
Points block(Real cell, const Vec3i& lo, const Vec3i& hi, const Vec3i& thin = Vec3i(-99, -99, -99), int count = 8) {
  std::vector<Vec3> kept;
  for (int k = lo.z(); k < hi.z(); ++k)
    for (int j = lo.y(); j < hi.y(); ++j)
      for (int i = lo.x(); i < hi.x(); ++i) {
        const int n = Vec3i(i, j, k) == thin ? count : 8;
        for (int s = 0; s < n; ++s)
          kept.push_back(cell * (Vec3(i, j, k) + Vec3(0.25 + 0.5 * (s & 1), 0.25 + 0.5 * ((s >> 1) & 1),
                                                       0.25 + 0.5 * ((s >> 2) & 1))));
      }
  Points out(3, static_cast<Index>(kept.size()));
  for (std::size_t p = 0; p < kept.size(); ++p) out.col(static_cast<Index>(p)) = kept[p];
  return out;
}

}  // namespace

TEST_CASE("ParticleInterior: the deep cells of a full block are the block less its outer layer") {
  const Real cell = 0.1;
  const Points p = block(cell, Vec3i(-2, 0, 3), Vec3i(4, 6, 9));
  const levelset::ParticleInterior interior(p, cell);
  int deep = 0;
  for (int k = 1; k < 11; ++k)
    for (int j = -2; j < 8; ++j)
      for (int i = -4; i < 6; ++i) {
        const bool inner = i > -2 && i < 3 && j > 0 && j < 5 && k > 3 && k < 8;
        CHECK_MESSAGE(interior.deep(Vec3i(i, j, k)) == inner, "cell " << i << " " << j << " " << k);
        deep += interior.deep(Vec3i(i, j, k));
      }
  CHECK(deep == 4 * 4 * 4);
  int in_runs = 0;
  for (const levelset::ParticleInterior::Run& run : interior.deep_runs()) {
    CHECK(run.length == 4);
    for (int d = 0; d < run.length; ++d) CHECK(interior.deep(run.first + Vec3i(d, 0, 0)));
    in_runs += run.length;
  }
  CHECK(in_runs == deep);
}

TEST_CASE("ParticleInterior: a thin cell keeps its neighbourhood out of the interior") {
  const Real cell = 1;
  const Vec3i thin(4, 4, 4);
  const Points p = block(cell, Vec3i(0, 0, 0), Vec3i(9, 9, 9), thin, levelset::DEEP_MIN_COUNT - 1);
  const levelset::ParticleInterior interior(p, cell);
  for (int k = 3; k <= 5; ++k)
    for (int j = 3; j <= 5; ++j)
      for (int i = 3; i <= 5; ++i) CHECK_FALSE(interior.deep(Vec3i(i, j, k)));
  CHECK(interior.deep(Vec3i(2, 4, 4)));
  CHECK(interior.deep(Vec3i(6, 6, 6)));
  // DEEP_MIN_COUNT particles are enough.
  const levelset::ParticleInterior enough(block(cell, Vec3i(0, 0, 0), Vec3i(9, 9, 9), thin, levelset::DEEP_MIN_COUNT),
                                          cell);
  CHECK(enough.deep(thin));
}

TEST_CASE("ParticleInterior: covers_ball and surface_particles") {
  const Real cell = 0.5, r = cell / 2;
  const Points p = block(cell, Vec3i(0, 0, 0), Vec3i(8, 8, 8));
  const levelset::ParticleInterior interior(p, cell);
  CHECK(interior.covers_ball(Vec3(2, 2, 2), r));                   // cells 3..4: deep
  CHECK_FALSE(interior.covers_ball(Vec3(0.6, 2, 2), r));           // reaches cell 0 (surface layer)
  CHECK_FALSE(interior.covers_ball(Vec3(2, 2, 2), 3 * cell));      // reaches cell 7 (surface layer)
  CHECK_FALSE(interior.covers_ball(Vec3(100, 2, 2), r));           // outside the box
  // Deep cells 1..6 per axis; a ball of radius cell / 2 around a sub-cell
  // centre stays in its cell and the neighbour on the near side: the covered
  // particles are those of cells 2..5 plus the inner halves of cells 1 and 6.
  const std::vector<Index> surface = interior.surface_particles(p, r);
  const Index covered = p.cols() - static_cast<Index>(surface.size());
  CHECK(covered == 10 * 10 * 10);
  for (std::size_t n = 1; n < surface.size(); ++n) CHECK(surface[n - 1] < surface[n]);
  for (const Index q : surface) CHECK_FALSE(interior.covers_ball(p.col(q), r));
}

TEST_CASE("ParticleInterior: no particles, no interior") {
  const levelset::ParticleInterior interior(Points(3, 0), 0.1);
  CHECK_FALSE(interior.deep(Vec3i(0, 0, 0)));
  CHECK(interior.deep_runs().empty());
  CHECK(interior.surface_particles(Points(3, 0), 0.05).empty());
}
