#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/cutcell/surface_patches.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/primitives.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::cutcell;

namespace {

// Round-off allowance relative to the quantity compared (areas, volumes of order 1).
constexpr Real EXACT = 1e-12;

grid::MacGrid make_grid(const Vec3i& resolution, const Vec3& origin, Real dx) {
  grid::MacGrid g;
  g.resolution = resolution;
  g.origin = origin;
  g.dx = dx;
  return g;
}

Vec3 corner(const Points& v, const mesh::Triangle& t, int k) { return v.col(t[k]); }

Real triangle_area(const Points& v, const mesh::Triangle& t) {
  return 0.5 * (corner(v, t, 1) - corner(v, t, 0)).cross(corner(v, t, 2) - corner(v, t, 0)).norm();
}

Vec3 centroid(const Points& v, const mesh::Triangle& t, const SurfacePatch& p) {
  return p.barycentric[0] * corner(v, t, 0) + p.barycentric[1] * corner(v, t, 1) +
         p.barycentric[2] * corner(v, t, 2);
}

// Volume enclosed by an outward surface: sum of the signed tets (0, a, b, c).
Real enclosed_volume(const Points& v, const std::vector<mesh::Triangle>& tris) {
  Real volume = 0;
  for (const auto& t : tris) volume += corner(v, t, 0).dot(corner(v, t, 1).cross(corner(v, t, 2))) / 6;
  return volume;
}

// A rigid motion about `center`: random rotation, then translation to `to`.
Points place(const Points& v, const Vec3& center, const Vec3& to, std::mt19937& rng) {
  std::normal_distribution<Real> normal(0, 1);
  const Vec3 axis = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
  const Real angle = std::uniform_real_distribution<Real>(0.3, 2.8)(rng);
  const Eigen::Matrix3d r = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  Points out(3, v.cols());
  for (Index i = 0; i < v.cols(); ++i) out.col(i) = to + r * (v.col(i) - center);
  return out;
}

// Geometric invariants every patch list must satisfy: sorted unique keys, unit
// inward normals, barycentrics summing to 1 and non-negative, centroids in their
// cells. Returns the largest centroid excursion outside its cell [units of dx].
Real check_patches(const grid::MacGrid& g, const Points& v, const std::vector<mesh::Triangle>& tris,
                   const std::vector<SurfacePatch>& patches) {
  const grid::Array3<int> layout(g.cell_shape());
  Real worst_outside = 0, worst_bary = 0, worst_normal = 0, smallest = std::numeric_limits<Real>::infinity();
  bool sorted = true;
  for (std::size_t n = 0; n < patches.size(); ++n) {
    const SurfacePatch& p = patches[n];
    if (n > 0) {
      const SurfacePatch& q = patches[n - 1];
      sorted = sorted && (q.cell < p.cell || (q.cell == p.cell && q.triangle < p.triangle));
    }
    const bool valid = p.cell >= 0 && p.cell < g.cell_count() && p.triangle >= 0 &&
                       p.triangle < static_cast<Index>(tris.size());
    REQUIRE(valid);
    smallest = std::min(smallest, p.area);
    const mesh::Triangle& t = tris[p.triangle];
    const Vec3 outward =
        (corner(v, t, 1) - corner(v, t, 0)).cross(corner(v, t, 2) - corner(v, t, 0)).normalized();
    worst_normal = std::max(worst_normal, (p.normal + outward).norm());
    worst_bary = std::max({worst_bary, std::abs(p.barycentric.sum() - 1), -p.barycentric.minCoeff()});
    const Vec3i c = layout.coord(p.cell);
    const Vec3 local = (centroid(v, t, p) - g.node_position(c.x(), c.y(), c.z())) / g.dx;
    worst_outside = std::max({worst_outside, -local.minCoeff(), local.maxCoeff() - 1});
  }
  CHECK(sorted);
  CHECK(smallest >= MIN_PATCH_AREA_FRACTION * g.dx * g.dx);
  CHECK(worst_normal <= EXACT);
  CHECK(worst_bary <= EXACT);
  CHECK(worst_outside <= EXACT);
  MESSAGE("patches " << patches.size() << ": max |n + n_out| " << worst_normal
                     << ", max barycentric error " << worst_bary
                     << ", max centroid excursion outside its cell " << worst_outside
                     << " dx, smallest area " << smallest / (g.dx * g.dx) << " dx^2");
  return worst_outside;
}

// Largest relative difference between a triangle's area and its patches' sum.
Real worst_triangle_area_error(const Points& v, const std::vector<mesh::Triangle>& tris,
                               const std::vector<SurfacePatch>& patches) {
  std::vector<Real> sum(tris.size(), 0);
  for (const SurfacePatch& p : patches) sum[p.triangle] += p.area;
  Real worst = 0;
  for (std::size_t t = 0; t < tris.size(); ++t) {
    const Real a = triangle_area(v, tris[t]);
    worst = std::max(worst, std::abs(sum[t] - a) / a);
  }
  return worst;
}

// The closed-surface identities: per-triangle areas, sum a n = 0, and the
// divergence theorem sum a (n . c) = -3 V with inward normals.
void check_closed_surface(const grid::MacGrid& g, const Points& v,
                          const std::vector<mesh::Triangle>& tris, Real volume) {
  const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
  check_patches(g, v, tris, patches);
  const Real area_error = worst_triangle_area_error(v, tris, patches);
  Real total_area = 0, flux = 0;
  Vec3 vector_area(0, 0, 0);
  for (const SurfacePatch& p : patches) {
    total_area += p.area;
    vector_area += p.area * p.normal;
    flux += p.area * p.normal.dot(centroid(v, tris[p.triangle], p));
  }
  MESSAGE(tris.size() << " triangles, " << patches.size() << " patches, area " << total_area
                      << " m^2: max per-triangle area error " << area_error << " (relative), |sum a n| / area "
                      << vector_area.norm() / total_area << ", sum a n.c = " << flux << " vs -3V = "
                      << -3 * volume << " (relative error " << std::abs(flux + 3 * volume) / (3 * volume)
                      << ")");
  CHECK(area_error <= EXACT);
  CHECK(vector_area.norm() <= EXACT * total_area);
  CHECK(std::abs(flux + 3 * volume) <= 1e-10 * 3 * volume);
}

}  // namespace

TEST_SUITE("cutcell") {

TEST_CASE("surface patches: closed meshes off the grid axes satisfy the area and closure and divergence identities") {
  std::mt19937 rng(20170731);
  const grid::MacGrid g = make_grid({24, 20, 22}, Vec3(-0.3, -0.2, -0.1), 0.05);
  const Vec3 middle = 0.5 * (g.origin + g.max());

  SUBCASE("box mesh") {
    const Vec3 size(0.37, 0.52, 0.29);
    const mesh::TetMesh box = mesh::box_mesh(Vec3::Zero(), size, {3, 5, 2});
    const Points v = place(box.rest, 0.5 * size, middle + Vec3(0.013, -0.021, 0.007), rng);
    check_closed_surface(g, v, box.boundary, size.prod());
  }
  SUBCASE("icosphere") {
    const mesh::SurfaceMesh sphere = mesh::icosphere(Vec3::Zero(), 0.33, 3);
    const Points v = place(sphere.vertices, Vec3::Zero(), middle + Vec3(-0.017, 0.011, 0.023), rng);
    check_closed_surface(g, v, sphere.triangles, enclosed_volume(v, sphere.triangles));
  }
  SUBCASE("coarse icosphere, triangles much larger than cells") {
    const mesh::SurfaceMesh sphere = mesh::icosphere(Vec3::Zero(), 0.4, 0);
    const Points v = place(sphere.vertices, Vec3::Zero(), middle, rng);
    check_closed_surface(g, v, sphere.triangles, enclosed_volume(v, sphere.triangles));
  }
}

TEST_CASE("surface patches: per-cell areas match dense sampling of the triangle") {
  // Independent of the clipping: sample the centroids of N^2 congruent
  // sub-triangles and bin them by cell; the binned area converges to the exact
  // per-cell area with an error of order (cell perimeter) x (sub-triangle size).
  const grid::MacGrid g = make_grid({10, 10, 10}, Vec3(0.1, -0.2, 0.05), 0.1);
  Points v(3, 3);
  v.col(0) = Vec3(0.137, -0.113, 0.271);
  v.col(1) = Vec3(0.811, 0.247, 0.403);
  v.col(2) = Vec3(0.392, 0.655, 0.889);
  const std::vector<mesh::Triangle> tris = {mesh::Triangle(0, 1, 2)};
  const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
  check_patches(g, v, tris, patches);

  const int n = 1000;
  const Real weight = triangle_area(v, tris[0]) / (Real(n) * n);
  std::map<Index, Real> sampled;
  const grid::Array3<int> layout(g.cell_shape());
  auto add = [&](Real s, Real t) {
    const Vec3 x = v.col(0) + s * (v.col(1) - v.col(0)) + t * (v.col(2) - v.col(0));
    const Vec3i c = g.cell_of(x);
    sampled[layout.index(c.x(), c.y(), c.z())] += weight;
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; i + j < n; ++j) {
      add((i + 1.0 / 3) / n, (j + 1.0 / 3) / n);
      if (i + j < n - 1) add((i + 2.0 / 3) / n, (j + 2.0 / 3) / n);
    }
  std::map<Index, Real> clipped;
  for (const SurfacePatch& p : patches) clipped[p.cell] += p.area;
  Real worst = 0;
  for (const auto& [cell, area] : sampled) worst = std::max(worst, std::abs(area - clipped[cell]));
  for (const auto& [cell, area] : clipped) worst = std::max(worst, std::abs(area - sampled[cell]));
  MESSAGE(patches.size() << " patches in " << sampled.size()
                         << " sampled cells; max per-cell |clipped - sampled| = " << worst / (g.dx * g.dx)
                         << " dx^2");
  CHECK(patches.size() == sampled.size());
  CHECK(worst <= 2e-3 * g.dx * g.dx);
}

TEST_CASE("surface patches: triangles on grid planes and through nodes and edges count each bit of area once") {
  // Dyadic origin and dx: node coordinates are exact, so vertices lie exactly on
  // the planes and the cell of every patch is known.
  const Real dx = 0.125;
  const grid::MacGrid g = make_grid({12, 12, 12}, Vec3(-0.5, 0.25, -0.75), dx);
  const grid::Array3<int> layout(g.cell_shape());
  auto node = [&](int i, int j, int k) { return g.node_position(i, j, k); };

  SUBCASE("right triangle in the plane x = x_3 with legs 4 dx between nodes") {
    // Cells are half-open, so the plane x_3 belongs to the cells i = 3. Below
    // the hypotenuse 6 cells are covered fully, 4 along it halfway: 8 dx^2.
    for (const bool flipped : {false, true}) {
      Points v(3, 3);
      v.col(0) = node(3, 1, 1);
      v.col(1) = node(3, 5, 1);
      v.col(2) = node(3, 1, 5);
      const std::vector<mesh::Triangle> tris = {flipped ? mesh::Triangle(0, 2, 1) : mesh::Triangle(0, 1, 2)};
      const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
      check_patches(g, v, tris, patches);
      CHECK(patches.size() == 10);
      Real total = 0;
      for (const SurfacePatch& p : patches) {
        const Vec3i c = layout.coord(p.cell);
        CHECK(c.x() == 3);
        const int diagonal = (c.y() - 1) + (c.z() - 1);
        CHECK(diagonal <= 3);
        CHECK(p.area == doctest::Approx(diagonal < 3 ? dx * dx : 0.5 * dx * dx).epsilon(EXACT));
        CHECK(p.normal.x() == (flipped ? 1 : -1));
        total += p.area;
      }
      CHECK(total == doctest::Approx(8 * dx * dx).epsilon(EXACT));
    }
  }

  SUBCASE("triangles in the wall planes belong to the wall cells") {
    Points v(3, 6);
    v.col(0) = node(0, 2, 2);
    v.col(1) = node(0, 4, 2);
    v.col(2) = node(0, 2, 4);
    v.col(3) = node(12, 2, 2);
    v.col(4) = node(12, 4, 2);
    v.col(5) = node(12, 2, 4);
    const std::vector<mesh::Triangle> tris = {mesh::Triangle(0, 2, 1), mesh::Triangle(3, 4, 5)};
    const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
    check_patches(g, v, tris, patches);
    Real area[2] = {0, 0};
    for (const SurfacePatch& p : patches) {
      CHECK(layout.coord(p.cell).x() == (p.triangle == 0 ? 0 : 11));
      area[p.triangle] += p.area;
    }
    CHECK(area[0] == doctest::Approx(2 * dx * dx).epsilon(EXACT));
    CHECK(area[1] == doctest::Approx(2 * dx * dx).epsilon(EXACT));
  }

  SUBCASE("grid-aligned box mesh with every vertex on a node: one patch per triangle") {
    // Each boundary triangle is half a cell face lying in a grid plane. Low
    // faces belong to the box's own cells, high faces to the cells beyond them
    // (half-open cells), so each triangle is exactly one patch.
    const Vec3 lo = node(2, 3, 4), hi = node(7, 9, 8);
    const mesh::TetMesh box = mesh::box_mesh(lo, hi, {5, 6, 4});
    const std::vector<SurfacePatch> patches = clip_surface(g, box.rest, box.boundary);
    check_patches(g, box.rest, box.boundary, patches);
    CHECK(patches.size() == box.boundary.size());
    CHECK(worst_triangle_area_error(box.rest, box.boundary, patches) <= EXACT);
    Real total = 0;
    for (const SurfacePatch& p : patches) {
      total += p.area;
      CHECK(p.area == doctest::Approx(0.5 * dx * dx).epsilon(EXACT));
      const Vec3i c = layout.coord(p.cell);
      Eigen::Index axis = 0;
      p.normal.cwiseAbs().maxCoeff(&axis);
      // A face in the plane with index i on `axis` lies in cells with index i there.
      const Real plane = centroid(box.rest, box.boundary[p.triangle], p)[axis];
      const int plane_index = static_cast<int>(std::lround((plane - g.origin[axis]) / dx));
      CHECK(c[axis] == plane_index);
    }
    const Real expected = 2 * dx * dx * (5 * 6 + 6 * 4 + 5 * 4);
    MESSAGE("aligned box: " << patches.size() << " patches, area " << total << " vs " << expected);
    CHECK(total == doctest::Approx(expected).epsilon(EXACT));
  }

  SUBCASE("tilted triangles with vertices on nodes and edges along grid lines") {
    Points v(3, 7);
    v.col(0) = node(1, 1, 1);
    v.col(1) = node(5, 1, 1);   // edge 0-1 along a grid line (x-axis edge of cells)
    v.col(2) = node(3, 4, 3);
    v.col(3) = node(2, 6, 2) + Vec3(0.5 * dx, 0, 0);  // mid-edge point
    v.col(4) = node(8, 2, 7);
    v.col(5) = node(6, 9, 1);
    v.col(6) = node(4, 4, 4);   // edge 2-6 is the diagonal of a cell face in the plane y = y_4
    const std::vector<mesh::Triangle> tris = {mesh::Triangle(0, 1, 2), mesh::Triangle(3, 4, 5),
                                              mesh::Triangle(2, 6, 0), mesh::Triangle(1, 4, 6)};
    const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
    check_patches(g, v, tris, patches);
    const Real error = worst_triangle_area_error(v, tris, patches);
    MESSAGE("tilted node triangles: max per-triangle area error " << error);
    CHECK(error <= EXACT);
  }
}

TEST_CASE("surface patches: parts outside the grid box are dropped") {
  const Real dx = 0.1;
  const grid::MacGrid g = make_grid({10, 8, 6}, Vec3(0, 0, 0), dx);
  const grid::Array3<int> layout(g.cell_shape());

  SUBCASE("axis-aligned quad crossing three walls: analytic area per cell") {
    // Quad z = 0.234, x in [-1, 0.47], y in [0.33, 5]; grid box [0,1] x [0,0.8] x [0,0.6].
    const Real z = 0.234, x0 = -1, x1 = 0.47, y0 = 0.33, y1 = 5;
    Points v(3, 4);
    v.col(0) = Vec3(x0, y0, z);
    v.col(1) = Vec3(x1, y0, z);
    v.col(2) = Vec3(x1, y1, z);
    v.col(3) = Vec3(x0, y1, z);
    const std::vector<mesh::Triangle> tris = {mesh::Triangle(0, 1, 2), mesh::Triangle(0, 2, 3)};
    const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
    check_patches(g, v, tris, patches);
    std::map<Index, Real> per_cell;
    Real total = 0;
    for (const SurfacePatch& p : patches) {
      per_cell[p.cell] += p.area;
      total += p.area;
      CHECK(p.normal.z() == -1);
    }
    const Real expected = (x1 - 0) * (0.8 - y0);
    MESSAGE("quad: area in the box " << total << " vs analytic " << expected);
    CHECK(total == doctest::Approx(expected).epsilon(EXACT));
    auto overlap = [](Real a0, Real a1, Real b0, Real b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); };
    const int k = static_cast<int>(std::floor(z / dx));
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 10; ++i) {
        const Real exact = overlap(x0, x1, i * dx, (i + 1) * dx) * overlap(y0, y1, j * dx, (j + 1) * dx);
        const Index cell = layout.index(i, j, k);
        const Real got = per_cell.count(cell) ? per_cell[cell] : 0;
        CHECK(got == doctest::Approx(exact).epsilon(EXACT).scale(dx * dx));
      }
    CHECK(per_cell.size() == 5 * 5);
  }

  SUBCASE("tilted quad crossing the whole box: area is the clipped segment times the depth") {
    // Plane z = c + s x, over y in [-1, 2] (beyond the box's [0, 0.8]). In the
    // xz box [0,1] x [0,0.6] the line runs from x = 0 (z = 0.15) up to z = 0.6
    // at x = (0.6 - 0.15) / 0.7.
    const Real c = 0.15, s = 0.7;
    Points v(3, 4);
    v.col(0) = Vec3(-0.5, -1, c - 0.5 * s);
    v.col(1) = Vec3(1.5, -1, c + 1.5 * s);
    v.col(2) = Vec3(1.5, 2, c + 1.5 * s);
    v.col(3) = Vec3(-0.5, 2, c - 0.5 * s);
    const std::vector<mesh::Triangle> tris = {mesh::Triangle(0, 1, 2), mesh::Triangle(0, 2, 3)};
    const std::vector<SurfacePatch> patches = clip_surface(g, v, tris);
    check_patches(g, v, tris, patches);
    Real total = 0;
    for (const SurfacePatch& p : patches) total += p.area;
    const Real x_end = (0.6 - c) / s;
    const Real expected = x_end * std::sqrt(1 + s * s) * 0.8;
    MESSAGE("tilted quad: area in the box " << total << " vs analytic " << expected);
    CHECK(total == doctest::Approx(expected).epsilon(EXACT));
  }

  SUBCASE("a triangle outside the box and a degenerate one give nothing") {
    Points v(3, 5);
    v.col(0) = Vec3(1.2, 0.1, 0.1);
    v.col(1) = Vec3(1.5, 0.3, 0.1);
    v.col(2) = Vec3(1.3, 0.2, 0.5);
    v.col(3) = Vec3(0.2, 0.2, 0.2);
    v.col(4) = Vec3(0.4, 0.4, 0.4);
    const std::vector<mesh::Triangle> tris = {mesh::Triangle(0, 1, 2), mesh::Triangle(3, 4, 4)};
    CHECK(clip_surface(g, v, tris).empty());
  }
}

TEST_CASE("surface patches: bad input is reported") {
  const grid::MacGrid g = make_grid({4, 4, 4}, Vec3(0, 0, 0), 0.25);
  Points v(3, 3);
  v << 0.1, 0.6, 0.2, 0.1, 0.2, 0.7, 0.3, 0.3, 0.4;
  test::require_error<MeshError>([&] { clip_surface(g, v, {mesh::Triangle(0, 1, 3)}); },
                                 {"triangle 0", "vertex 3"});
  v(1, 2) = std::nan("");
  test::require_error<SimulationError>([&] { clip_surface(g, v, {mesh::Triangle(0, 1, 2)}); },
                                       {"vertex 2", "not finite"});
}

TEST_CASE("surface patches: deterministic across thread counts - timing of the 725-node beam") {
  // The paper's dam-break beam: 0.08 x 0.56 x 0.08 m, 5 x 29 x 5 nodes, slightly
  // rotated in a 100^3 grid of dx = 0.01 m.
  const mesh::TetMesh beam = mesh::box_mesh(Vec3::Zero(), Vec3(0.08, 0.56, 0.08), {4, 28, 4});
  REQUIRE(beam.rest.cols() == 725);
  std::mt19937 rng(725);
  const Points v = place(beam.rest, Vec3(0.04, 0.28, 0.04), Vec3(0.503, 0.4, 0.497), rng);
  const grid::MacGrid g = make_grid({100, 100, 100}, Vec3(0, 0, 0), 0.01);

  set_threads(1);
  const std::vector<SurfacePatch> serial = clip_surface(g, v, beam.boundary);
  set_threads(2);
  std::vector<SurfacePatch> parallel;
  clip_surface(g, v, beam.boundary, parallel);
  REQUIRE(serial.size() == parallel.size());
  bool identical = true;
  for (std::size_t n = 0; n < serial.size(); ++n) {
    const SurfacePatch &a = serial[n], &b = parallel[n];
    identical = identical && a.cell == b.cell && a.triangle == b.triangle && a.area == b.area &&
                a.normal == b.normal && a.barycentric == b.barycentric;
  }
  CHECK(identical);
  check_patches(g, v, beam.boundary, parallel);
  CHECK(worst_triangle_area_error(v, beam.boundary, parallel) <= EXACT);

  for (const int threads : {1, 2}) {
    set_threads(threads);
    const int runs = 200;
    const std::clock_t cpu_start = std::clock();
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < runs; ++r) clip_surface(g, v, beam.boundary, parallel);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    MESSAGE("beam: " << beam.boundary.size() << " triangles -> " << parallel.size() << " patches, "
                     << 1e3 * seconds / runs << " ms wall (" << 1e3 * cpu_seconds / runs
                     << " ms CPU, all threads) per clip_surface with " << threads << " thread(s)");
  }
  set_threads(0);
}

}  // TEST_SUITE("cutcell")
