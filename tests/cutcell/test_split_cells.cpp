#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <vector>

#include "lib/cutcell/split_cells.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/fluid/pressure_projection.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/mesh/box.hpp"
#include "tests/cutcell/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::cutcell;

namespace {

// An 8^3 grid of 0.1 m cells and one box solid (test::BoxInGrid), the face
// fractions with thin walls closed, and the split cells.
struct Setup : test::BoxInGrid {
  FaceFractions fractions;
  SplitCells split;
  Setup(const Vec3& lo, const Vec3& hi) : BoxInGrid(lo, hi, Vec3i(1, 4, 4)) {
    compute_face_fractions(grid, phi, fractions);
    grid::Array3<char> flagged;
    close_thin_solid_faces(grid, phi, surfaces, fractions, flagged);
    split = split_cells(grid, phi, surfaces, flagged, fractions);
  }
  Index cell(int i, int j, int k) const { return i + 8 * (j + 8 * k); }
  Index face(int axis, const Vec3i& f) const { return fractions[axis].index(f.x(), f.y(), f.z()); }
};

}  // namespace

TEST_CASE("split cells: a wall inside a cell gives one region per side, and the faces it crosses a piece each") {
  // A plate 0.01 m thick across the whole grid at x = 0.44 .. 0.45, inside the
  // cells x = 4 (0.4 .. 0.5), every node outside it: 0.4 of the cell on its
  // low side, 0.5 on its high side.
  const Setup s(Vec3(0.44, -1, -1), Vec3(0.45, 2, 2));
  const Index c = s.cell(4, 3, 3);
  REQUIRE(s.split.count(c) == 2);
  CHECK(s.split.count(s.cell(3, 3, 3)) == 1);
  // The faces along x are whole again, each joining one region: the low face
  // the region numbered first (its samples come first), the high face the other.
  CHECK(s.fractions[0](4, 3, 3) == doctest::Approx(1));
  CHECK(s.fractions[0](5, 3, 3) == doctest::Approx(1));
  const std::vector<FacePiece>* low = s.split.pieces(0, s.face(0, Vec3i(4, 3, 3)));
  const std::vector<FacePiece>* high = s.split.pieces(0, s.face(0, Vec3i(5, 3, 3)));
  REQUIRE(low);
  REQUIRE(high);
  REQUIRE(low->size() == 1);
  REQUIRE(high->size() == 1);
  CHECK((*low)[0].high == 0);
  CHECK((*high)[0].low == 1);
  // A face along y that the plate crosses: a piece per side, joining the same
  // side's regions above and below, its share that side's open area (0.4 and
  // 0.5 of the face: x = 0.40 .. 0.44 and 0.45 .. 0.50), measured in steps of
  // 1/24 of the face's width; the plate's 0.1 is in neither. Before the open
  // area was measured the shares were those of the coarse samples times the
  // node field's fraction (1 here): 0.4 and 0.6, the high side's sliver a
  // fifth too wide, and the liquid in it packed when it drained.
  const std::vector<FacePiece>* across = s.split.pieces(1, s.face(1, Vec3i(4, 4, 3)));
  REQUIRE(across);
  REQUIRE(across->size() == 2);
  Real sum = 0;
  for (const FacePiece& p : *across) {
    CHECK(p.low == p.high);
    CHECK(std::abs(p.fraction - (p.low == 0 ? 0.4 : 0.5)) <= 1.0 / 24);
    sum += p.fraction;
  }
  CHECK(sum == doctest::Approx(s.fractions[1](4, 4, 3)));
  // Points find their side's region; a point inside the plate none.
  CHECK(region_of(s.split, s.grid, s.surfaces, c, Vec3(0.41, 0.35, 0.35)) == 0);
  CHECK(region_of(s.split, s.grid, s.surfaces, c, Vec3(0.48, 0.35, 0.35)) == 1);
  CHECK(region_of(s.split, s.grid, s.surfaces, c, Vec3(0.445, 0.35, 0.35)) == -1);
}

TEST_CASE("split cells: the pressure matrix with split cells is symmetric positive definite and projects each region") {
  // Liquid everywhere below y = 0.55 on both sides of the plate above; the
  // pressure system of a still, falling field (u* = -g dt on every y face).
  const Setup s(Vec3(0.44, -1, -1), Vec3(0.45, 2, 2));
  grid::Array3<Real> liquid(s.grid.cell_shape());
  for (Index n = 0; n < liquid.count(); ++n) liquid[n] = 0.1 * (liquid.coord(n).y() + 0.5) - 0.55;
  grid::MacVelocity u = grid::make_velocity(s.grid);
  u[1].fill(-9.81 * 0.01);
  const fluid::PressureSystem sys = fluid::assemble_pressure(s.grid, liquid, s.fractions, u, 0.01, 1000, s.split);
  REQUIRE(sys.active.count() > sys.active.whole);  // the split cells' second regions
  const Eigen::MatrixXd A(sys.matrix);
  CHECK((A - A.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * A.cwiseAbs().maxCoeff());
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  CHECK(eig.eigenvalues().minCoeff() > 0);

  // Projected, the field is still: each region's balance holds, so the
  // hydrostatic pressure cancels gravity on every face, the split ones too.
  grid::Array3<Real> p(s.grid.cell_shape(), 0);
  std::vector<Real> regions;
  fluid::FaceFlags valid;
  fluid::ProjectionSettings settings;
  fluid::project_pressure(s.grid, liquid, s.fractions, 0.01, 1000, settings, u, p, valid, s.split, &regions);
  Real fastest = 0;
  for (int a = 0; a < 3; ++a)
    for (Index f = 0; f < u[a].count(); ++f)
      if (valid[a][f]) fastest = std::max(fastest, std::abs(u[a][f]));
  CHECK(fastest < 1e-9);
  // Both sides of the plate in a split cell hold the same hydrostatic pressure.
  const int first = sys.active.unknown(s.cell(4, 2, 3), 0), second = sys.active.unknown(s.cell(4, 2, 3), 1);
  REQUIRE(first >= 0);
  REQUIRE(second >= sys.active.whole);
  CHECK(regions[static_cast<std::size_t>(second - sys.active.whole)] == doctest::Approx(p(4, 2, 3)).epsilon(1e-9));
}

TEST_CASE("split cells: regions that meet only through split faces still get a positive definite matrix") {
  // The plate's column of cells (x = 4) shut off from its neighbours along x,
  // as if thick walls stood there: its regions meet each other only through
  // the faces the plate splits. A closed box full of liquid: every group is
  // pinned. Each piece is a face of its own (fluid/pressure_projection.hpp),
  // so the matrix is a graph Laplacian over cells and regions; when one
  // velocity per face was shared by its pieces it constrained one combination
  // of their pressure differences only, and the matrix was singular beyond
  // the pinned constants (smallest eigenvalue ~1e-20 of the largest) until
  // each piece got a small term of its own.
  Setup s(Vec3(0.44, -1, -1), Vec3(0.45, 2, 2));
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 8; ++j) {
      s.fractions[0](4, j, k) = 0;
      s.fractions[0](5, j, k) = 0;
    }
  grid::Array3<Real> liquid(s.grid.cell_shape(), -1);
  grid::MacVelocity u = grid::make_velocity(s.grid);
  const fluid::PressureSystem sys = fluid::assemble_pressure(s.grid, liquid, s.fractions, u, 0.01, 1000, s.split);
  REQUIRE(sys.active.count() == 512 + 64);
  const Eigen::MatrixXd A(sys.matrix);
  CHECK((A - A.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * A.cwiseAbs().maxCoeff());
  const Eigen::VectorXd lambda = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues();
  MESSAGE("eigenvalues from " << lambda.minCoeff() << " to " << lambda.maxCoeff());
  // Definite beyond round-off (about 1e-13 of the largest for 576 rows;
  // measured 2.2e-4, the slowest mode of the pinned column's regions).
  CHECK(lambda.minCoeff() > 1e-12 * lambda.maxCoeff());
  // Four groups without air, each pinned once: the cells left of the column,
  // those right of it, and the column's regions on either side of the plate.
  CHECK(sys.pinned_groups == 4);
}

TEST_CASE("split cells: each region's volume is the open space on its side of the wall") {
  // The plate of the first test (x = 0.44 .. 0.45 inside the cells x = 0.4 ..
  // 0.5): 0.4 of each cell on its low side, 0.5 on its high side, 0.1 in it.
  // In steps of 1/24 of a cell per axis the two read within 1/48 each.
  const Setup s(Vec3(0.44, -1, -1), Vec3(0.45, 2, 2));
  const std::vector<Index> cells{s.cell(4, 3, 3), s.cell(4, 0, 7)};
  const std::unordered_map<Index, std::vector<Real>> v = region_volumes(s.split, s.grid, s.surfaces, cells);
  REQUIRE(v.size() == 2);
  for (Index c : cells) {
    REQUIRE(v.at(c).size() == 2);
    CHECK(std::abs(v.at(c)[0] - 0.4) <= 1.0 / 48);
    CHECK(std::abs(v.at(c)[1] - 0.5) <= 1.0 / 48);
  }
  // A cell nothing splits has no region volumes.
  CHECK(region_volumes(s.split, s.grid, s.surfaces, {s.cell(3, 3, 3)}).empty());
}

TEST_CASE("split cells: a wall flush with a cell's face leaves one region - its open part measured") {
  // A plate x = 0.481 .. 0.4995 inside the cells x = 0.4 .. 0.5: the gap to the
  // face x = 0.5 is narrower than a sample spacing, so the cell has one
  // region, 0.81 of it open. The cell beyond (x = 0.5 .. 0.6) is examined
  // too, and nothing covers it.
  const Setup s(Vec3(0.481, -1, -1), Vec3(0.4995, 2, 2));
  const Index c = s.cell(4, 3, 3), beyond = s.cell(5, 3, 3);
  REQUIRE(s.split.regions.count(c) == 1);
  CHECK(s.split.count(c) == 1);
  REQUIRE(s.split.partial.count(c) == 1);
  CHECK(s.split.partial.count(beyond) == 0);
  CHECK(s.split.samples.count(c) == 0);
  const std::vector<Real> v = region_volumes(s.split, s.grid, s.surfaces, {c}).at(c);
  REQUIRE(v.size() == 1);
  CHECK(std::abs(v[0] - 0.81) <= 1.0 / 48);
}

TEST_CASE("split cells: a tilted wall's regions measure the prisms on either side") {
  // A plate 0.012 m thick tilted in x-y: its mid-plane x = 0.445 + 0.2 (y - 0.35),
  // so in the cell (4, 3, k) (x 0.4 .. 0.5, y 0.3 .. 0.4) the mid-plane runs
  // from x = 0.435 to 0.455: the low side's open space is the mean of the
  // distance to the plate's low face over the cell's height, 0.445 - 0.4 -
  // 0.006 / cos(a) per cell width, the high side's 0.5 - 0.445 - 0.006 / cos(a).
  const Real slope = 0.2, half = 0.006;
  const Real c = 1 / std::sqrt(1 + slope * slope), sn = slope * c;
  // The plate as a box in its own frame, rotated about z at (0.445, 0.35).
  grid::MacGrid grid;
  grid.resolution = {8, 8, 8};
  grid.dx = 0.1;
  mesh::TetMesh m = mesh::box_mesh(Vec3(-half, -2, -1), Vec3(half, 2, 2), Vec3i(1, 4, 4));
  for (Index n = 0; n < m.rest.cols(); ++n) {
    const Vec3 p = m.rest.col(n);
    m.rest.col(n) = Vec3(0.445 + c * p.x() + sn * p.y(), 0.35 - sn * p.x() + c * p.y(), p.z());
  }
  std::vector<levelset::MeshDistance> surfaces;
  surfaces.emplace_back(m.rest, m.boundary);
  grid::Array3<Real> phi = levelset::sample_mesh_sdf_at_nodes(grid, surfaces[0], 5 * grid.dx);
  levelset::resolve_surface_ties(grid, phi);
  FaceFractions fractions;
  compute_face_fractions(grid, phi, fractions);
  grid::Array3<char> flagged;
  close_thin_solid_faces(grid, phi, surfaces, fractions, flagged);
  const SplitCells split = split_cells(grid, phi, surfaces, flagged, fractions);
  const Index cell = 4 + 8 * (3 + 8 * 4);
  REQUIRE(split.count(cell) == 2);
  const std::vector<Real> v = region_volumes(split, grid, surfaces, {cell}).at(cell);
  const Real low = (0.445 - 0.4 - half / c) / 0.1, high = (0.5 - 0.445 - half / c) / 0.1;
  MESSAGE("regions " << v[0] << " and " << v[1] << " against " << low << " and " << high);
  CHECK(std::abs(v[0] - low) <= 1.0 / 48);
  CHECK(std::abs(v[1] - high) <= 1.0 / 48);
}
