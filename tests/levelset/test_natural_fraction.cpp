#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "lib/fluid/particles.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/natural_fraction.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "tests/grid/fixtures.hpp"

using namespace fsicut;

namespace {

// Seeds the region `inside` (8 jittered particles per cell), drops the
// particles `drop` picks, measures rho and compares rho_ref with it over the
// cells 2 or more cells from the grid's walls whose depth under the surface
// (`depth`, in cells) lies in [from, from + 0.25): the mean of rho - rho_ref
// over those cells and their number. Why means over a depth band: rho carries
// the jitter's +-6 % cell by cell; what the reference must get right is its
// level.
struct Band {
  Real mean = 0;
  int cells = 0;
};
using Depth = std::function<Real(const Vec3&)>;
std::vector<Band> compare(const std::function<bool(const Vec3&)>& inside, const Depth& depth,
                          const std::vector<Real>& from, const std::function<bool(const Vec3&, Index)>& drop = {}) {
  const int n = 32;
  const auto g = test::unit_cube(n);
  const Points seeded = fluid::seed_particles(g, inside, 8, 5);
  Points p(3, seeded.cols());
  Index kept = 0;
  for (Index q = 0; q < seeded.cols(); ++q)
    if (!drop || !drop(seeded.col(q), q)) p.col(kept++) = seeded.col(q);
  p.conservativeResize(3, kept);
  const auto solid = levelset::sample_solid_at_nodes(g, {});
  grid::Array3<Real> rho;
  levelset::liquid_fraction_from_particles(g, p, g.dx * g.dx * g.dx / 8, solid, rho);
  std::vector<Index> cells;
  for (Index c = 0; c < rho.count(); ++c) {
    const Vec3i at = rho.coord(c);
    if ((at.array() >= 2).all() && (at.array() < n - 2).all()) cells.push_back(c);
  }
  const levelset::NaturalFraction natural = levelset::natural_fraction(g, rho, solid, {}, cells);
  const std::vector<Real>& ref = natural.ref;
  std::vector<Band> bands(from.size());
  for (std::size_t r = 0; r < cells.size(); ++r) {
    const Vec3i at = rho.coord(cells[r]);
    const Real d = depth(g.cell_center(at.x(), at.y(), at.z())) / g.dx;
    for (std::size_t b = 0; b < from.size(); ++b)
      if (d >= from[b] && d < from[b] + 0.25) {
        REQUIRE(ref[r] >= 0);
        // The cells beside the surface (about a cell deep or less) are the fit's.
        if (natural.beside[r]) {
          CHECK(d < 1.25);
          continue;
        }
        bands[b].mean += rho[cells[r]] - ref[r];
        ++bands[b].cells;
      }
  }
  for (Band& b : bands) b.mean /= std::max(b.cells, 1);
  return bands;
}

}  // namespace

TEST_CASE("natural fraction: the kernel's integral and its inverse") {
  CHECK(levelset::colour_kernel_cdf(0) == doctest::Approx(0.5));
  CHECK(levelset::colour_kernel_cdf(-1.5) == 0);
  CHECK(levelset::colour_kernel_cdf(1.5) == 1);
  for (Real t = -1.6; t <= 1.6; t += 0.01) {
    const Real h = 1e-6;
    const Real slope = (levelset::colour_kernel_cdf(t + h) - levelset::colour_kernel_cdf(t - h)) / (2 * h);
    CHECK(slope == doctest::Approx(levelset::colour_kernel(t)).epsilon(1e-6));
    CHECK(levelset::colour_kernel_cdf(-t) == doctest::Approx(1 - levelset::colour_kernel_cdf(t)).epsilon(1e-12));
    if (std::abs(t) < 1.5)
      CHECK(levelset::colour_kernel_cdf_inverse(levelset::colour_kernel_cdf(t)) == doctest::Approx(t).epsilon(1e-9));
  }
}

// Within 0.8 %, well under the density correction's trigger (2 %): the seeded
// particles themselves read 0.6 % above the continuum K(1) one cell under a
// level surface, and a band's mean carries the jitter's +-0.3 %. Without the
// fit of the outline to the cells beside the surface the ball's cells 0.75
// cells deep read 1.4 % above their reference. The cells beside the surface
// (the fit's data) have none.
TEST_CASE("natural fraction: seeded half-spaces and a ball read as seeded at every depth with a reference") {
  const std::vector<Real> from = {0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0};
  auto check = [](const std::vector<Band>& bands) {
    int filled = 0;
    for (const Band& b : bands) {
      if (b.cells == 0) continue;
      ++filled;
      CHECK(std::abs(b.mean) < 0.008);
    }
    return filled;
  };
  SUBCASE("level, the surface through cell centres") {
    const Real level = 16.5 / 32;
    CHECK(check(compare([&](const Vec3& x) { return x.y() < level; }, [&](const Vec3& x) { return level - x.y(); },
                        from)) == 3);
  }
  SUBCASE("level, the surface on a face plane") {
    const Real level = 0.5;
    CHECK(check(compare([&](const Vec3& x) { return x.y() < level; }, [&](const Vec3& x) { return level - x.y(); },
                        from)) == 2);
  }
  SUBCASE("tilted") {
    const Vec3 normal = Vec3(0.3, 1, 0.5).normalized();
    const Vec3 point(0.5, 0.5, 0.5);
    CHECK(check(compare([&](const Vec3& x) { return (x - point).dot(normal) < 0; },
                        [&](const Vec3& x) { return -(x - point).dot(normal); }, from)) == 7);
  }
  SUBCASE("a ball 9.6 cells in radius") {
    const Vec3 centre(0.5, 0.5, 0.5);
    const Real radius = 0.3;
    CHECK(check(compare([&](const Vec3& x) { return (x - centre).norm() < radius; },
                        [&](const Vec3& x) { return radius - (x - centre).norm(); }, from)) == 7);
  }
}

// The case the reference is for: particles 4 % sparser from 0.5 to 3 cells
// under the surface. The sparser surface cells move the outline inward by
// about 0.05 cells, which a cell 1.5 cells deep hardly sees.
TEST_CASE("natural fraction: particles spread 4 % apart under a surface read 4 % below the reference") {
  const Real level = 0.5;
  const Depth depth = [&](const Vec3& x) { return (level - x.y()) * 32; };
  const auto bands = compare([&](const Vec3& x) { return x.y() < level; }, [&](const Vec3& x) { return level - x.y(); },
                             {1.5, 4.5}, [&](const Vec3& x, Index q) {
                               const Real d = depth(x);
                               return d > 0.5 && d < 3.0 && q % 25 == 0;
                             });
  REQUIRE(bands[0].cells > 0);
  CHECK(bands[0].mean == doctest::Approx(-0.04).epsilon(0.25));
  CHECK(std::abs(bands[1].mean) < 0.008);
}
