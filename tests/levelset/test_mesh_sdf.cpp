#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "lib/core/error.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/obj.hpp"
#include "lib/mesh/primitives.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::levelset;

namespace {

// Round-off allowance of distances of order 1 m, the meshes' size.
constexpr Real EXACT = 1e-12;

// Distance from p to triangle (a, b, c), computed independently of the library:
// the projection onto the plane if it falls inside the triangle, otherwise the
// nearest of the three edges.
Real segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const Real t = std::clamp((p - a).dot(ab) / ab.squaredNorm(), Real(0), Real(1));
  return (p - (a + t * ab)).norm();
}

Real triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 q = p - n.dot(p - a) * n;
  const bool in = n.dot((b - a).cross(q - a)) >= 0 && n.dot((c - b).cross(q - b)) >= 0 &&
                  n.dot((a - c).cross(q - c)) >= 0;
  if (in) return std::abs(n.dot(p - a));
  return std::min({segment_distance(p, a, b), segment_distance(p, b, c), segment_distance(p, c, a)});
}

Real brute_distance(const Points& v, const std::vector<mesh::Triangle>& tris, const Vec3& p) {
  Real d = std::numeric_limits<Real>::infinity();
  for (const auto& t : tris) d = std::min(d, triangle_distance(p, v.col(t[0]), v.col(t[1]), v.col(t[2])));
  return d;
}

// Largest face-plane value max_f n_f . (p - a_f): negative exactly inside a convex polyhedron.
Real convex_plane_value(const mesh::SurfaceMesh& m, const Vec3& p) {
  Real s = -std::numeric_limits<Real>::infinity();
  for (const auto& t : m.triangles) {
    const Vec3 a = m.vertices.col(t[0]);
    const Vec3 n = (m.vertices.col(t[1]) - a).cross(m.vertices.col(t[2]) - a).normalized();
    s = std::max(s, n.dot(p - a));
  }
  return s;
}

Real box_sdf(const Vec3& lo, const Vec3& hi, const Vec3& x) {
  const Vec3 q = (x - 0.5 * (lo + hi)).cwiseAbs() - 0.5 * (hi - lo);
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), Real(0));
}

// The boundary of a structured box mesh: many coplanar triangles, vertices of
// valence 4 and 6 on the faces, and interior nodes that no triangle uses.
mesh::SurfaceMesh box_surface(const Vec3& lo, const Vec3& hi, const Vec3i& cells) {
  const mesh::TetMesh t = mesh::box_mesh(lo, hi, cells);
  return {t.rest, t.boundary};
}

// An L-shaped prism, A = [0,2]x[0,1]x[0,1] union B = [0,1]x[0,2]x[0,1]: 2x2x1 unit
// cells without the cell [1,2]x[1,2]x[0,1]. Its edge x = y = 1 is concave.
mesh::SurfaceMesh l_prism() {
  const mesh::TetMesh t = mesh::box_mesh(Vec3(0, 0, 0), Vec3(2, 2, 1), Vec3i(2, 2, 1));
  std::vector<mesh::Tet> kept;
  for (const auto& tet : t.tets) {
    Vec3 c = Vec3::Zero();
    for (int k = 0; k < 4; ++k) c += t.rest.col(tet[k]) / 4;
    if (!(c.x() > 1 && c.y() > 1)) kept.push_back(tet);
  }
  return {t.rest, mesh::extract_boundary(kept)};
}

bool in_l_prism(const Vec3& x) {
  const bool z = x.z() > 0 && x.z() < 1;
  return z && ((x.x() > 0 && x.x() < 2 && x.y() > 0 && x.y() < 1) || (x.x() > 0 && x.x() < 1 && x.y() > 0 && x.y() < 2));
}

Vec3 random_point(std::mt19937_64& rng, const Vec3& lo, const Vec3& hi) {
  std::uniform_real_distribution<Real> u(0, 1);
  return lo + Vec3(u(rng), u(rng), u(rng)).cwiseProduct(hi - lo);
}

Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<Real> n(0, 1);
  return Vec3(n(rng), n(rng), n(rng)).normalized();
}

std::string mesh_path(const std::string& file) { return (test::source_dir() / "meshes" / file).string(); }

}  // namespace

TEST_CASE("mesh SDF: icosphere distance equals brute force and the sphere's within the polyhedral error") {
  const Vec3 c(0.3, -0.2, 0.5);
  const Real r = 0.7;
  const mesh::SurfaceMesh ico = mesh::icosphere(c, r, 3);
  const MeshDistance dist(ico);
  // The polyhedron lies between its inscribed ball (radius = nearest face plane)
  // and the sphere, so its signed distance lies between theirs.
  Real r_in = r;
  for (const auto& t : ico.triangles) {
    const Vec3 a = ico.vertices.col(t[0]);
    const Vec3 n = (ico.vertices.col(t[1]) - a).cross(ico.vertices.col(t[2]) - a).normalized();
    r_in = std::min(r_in, n.dot(a - c));
  }
  std::mt19937_64 rng(7);
  Real worst_brute = 0, worst_sphere = 0;
  int wrong_sign = 0;
  const int samples = 3000;
  for (int s = 0; s < samples; ++s) {
    const Vec3 x = random_point(rng, c - Vec3::Constant(2 * r), c + Vec3::Constant(2 * r));
    const Real d = dist.signed_distance(x);
    worst_brute = std::max(worst_brute, std::abs(std::abs(d) - brute_distance(ico.vertices, ico.triangles, x)));
    worst_sphere = std::max(worst_sphere, std::abs(d - ((x - c).norm() - r)));
    if ((d < 0) != (convex_plane_value(ico, x) < 0)) ++wrong_sign;
  }
  MESSAGE("1280 triangles, " << samples << " points: max |d - brute force| = " << worst_brute
                             << ", max |d - sphere SDF| = " << worst_sphere << " (bound R - r_in = " << r - r_in
                             << "), wrong signs " << wrong_sign);
  CHECK(worst_brute <= EXACT);
  CHECK(worst_sphere <= r - r_in + EXACT);
  CHECK(wrong_sign == 0);
  CHECK(dist.signed_distance(c) == doctest::Approx(-r_in).epsilon(1e-12));
}

TEST_CASE("mesh SDF: signs next to vertices and edges follow the pseudonormals") {
  const mesh::SurfaceMesh ico = mesh::icosphere(Vec3(0, 0, 0), 1.0, 2);
  const MeshDistance dist(ico);
  std::mt19937_64 rng(11);
  int checked = 0, wrong = 0, ambiguous = 0;
  // Where the exact plane test is within round-off of 0 the point is on the
  // surface for all practical purposes: no sign is right there.
  constexpr Real ON_SURFACE = 1e-13;
  const auto check_point = [&](const Vec3& x) {
    const Real plane = convex_plane_value(ico, x);
    if (std::abs(plane) < ON_SURFACE) {
      ++ambiguous;
      return;
    }
    ++checked;
    if ((dist.signed_distance(x) < 0) != (plane < 0)) ++wrong;
  };
  for (const Real offset : {1e-2, 1e-4, 1e-7}) {
    for (Index v = 0; v < ico.vertices.cols(); ++v) {
      const Vec3 p = ico.vertices.col(v);
      check_point(p * (1 + offset));
      check_point(p * (1 - offset));
      for (int k = 0; k < 4; ++k) check_point(p + offset * random_unit(rng));
    }
    for (const auto& t : ico.triangles)
      for (int e = 0; e < 3; ++e) {
        const Vec3 a = ico.vertices.col(t[e]), b = ico.vertices.col(t[(e + 1) % 3]);
        const Vec3 m = a + std::uniform_real_distribution<Real>(0, 1)(rng) * (b - a);
        check_point(m * (1 + offset));
        check_point(m * (1 - offset));
        check_point(m + offset * random_unit(rng));
      }
  }
  MESSAGE(checked << " points near vertices and edges, " << wrong << " wrong signs, " << ambiguous
                  << " within " << ON_SURFACE << " of the surface skipped");
  CHECK(checked > 10000);
  CHECK(wrong == 0);
}

TEST_CASE("mesh SDF: concave edges and vertices of an L-shaped prism") {
  const mesh::SurfaceMesh l = l_prism();
  const MeshDistance dist(l);
  std::mt19937_64 rng(3);
  Real worst = 0;
  int wrong = 0, checked = 0;
  const auto check_point = [&](const Vec3& x) {
    const Real d = dist.signed_distance(x);
    worst = std::max(worst, std::abs(std::abs(d) - brute_distance(l.vertices, l.triangles, x)));
    ++checked;
    if ((d < 0) != in_l_prism(x)) ++wrong;
  };
  for (int s = 0; s < 2000; ++s) check_point(random_point(rng, Vec3(-0.5, -0.5, -0.5), Vec3(2.5, 2.5, 1.5)));
  // Around the concave edge x = y = 1 and its two concave vertices.
  for (int s = 0; s < 2000; ++s) {
    const Real z = s % 3 == 0 ? 0.0 : s % 3 == 1 ? 1.0 : std::uniform_real_distribution<Real>(0, 1)(rng);
    const Real radius = std::pow(10.0, -std::uniform_real_distribution<Real>(1, 6)(rng));
    const Vec3 x = Vec3(1, 1, z) + radius * random_unit(rng);
    if (std::abs(x.z() - 0.5) < 0.5 && (std::abs(x.x() - 1) < 1e-13 || std::abs(x.y() - 1) < 1e-13)) continue;
    check_point(x);
  }
  // On the bisector of the reflex corner, where edge pseudonormals decide.
  for (const Real t : {1e-1, 1e-3, 1e-6}) {
    check_point(Vec3(1 + t, 1 + t, 0.5));
    check_point(Vec3(1 - t, 1 - t, 0.5));
  }
  MESSAGE(checked << " points, max |d - brute force| = " << worst << ", wrong signs " << wrong);
  CHECK(worst <= EXACT);
  CHECK(wrong == 0);
  CHECK(dist.signed_distance(Vec3(1.5, 1.5, 0.5)) == doctest::Approx(0.5));
  // Inside, next to the reflex edge: the edge itself is the nearest boundary.
  CHECK(dist.signed_distance(Vec3(0.9, 0.9, 0.5)) == doctest::Approx(-0.1 * std::sqrt(2.0)));
}

TEST_CASE("mesh SDF: cubes equal the analytic box SDF, hollow cube the difference of two") {
  std::mt19937_64 rng(5);
  const mesh::SurfaceMesh cube = mesh::read_obj(mesh_path("cube.obj"));
  const Vec3 lo(0.1, -0.2, 0.3), hi(1.1, 1.8, 3.3);
  const mesh::SurfaceMesh boxes = box_surface(lo, hi, Vec3i(3, 4, 5));
  const mesh::SurfaceMesh hollow = mesh::read_obj(mesh_path("hollow_cube.obj"));
  const MeshDistance d_cube(cube), d_box(boxes), d_hollow(hollow);
  Real worst_cube = 0, worst_box = 0, worst_hollow = 0;
  const Vec3 h(0.5, 0.5, 0.5), q(0.25, 0.25, 0.25);
  for (int s = 0; s < 3000; ++s) {
    const Vec3 x = random_point(rng, -1.5 * h, 1.5 * h);
    worst_cube = std::max(worst_cube, std::abs(d_cube.signed_distance(x) - box_sdf(-h, h, x)));
    worst_hollow = std::max(worst_hollow, std::abs(d_hollow.signed_distance(x) -
                                                   std::max(box_sdf(-h, h, x), -box_sdf(-q, q, x))));
    const Vec3 y = random_point(rng, lo - Vec3::Constant(0.5), hi + Vec3::Constant(0.5));
    worst_box = std::max(worst_box, std::abs(d_box.signed_distance(y) - box_sdf(lo, hi, y)));
  }
  // Surface vertices and edge midpoints of the subdivided box, pushed in and out.
  for (Index v = 0; v < boxes.vertices.cols(); ++v)
    for (const Real t : {-0.05, 0.05}) {
      const Vec3 y = boxes.vertices.col(v) + t * Vec3(1, -1, 1).normalized();
      worst_box = std::max(worst_box, std::abs(d_box.signed_distance(y) - box_sdf(lo, hi, y)));
    }
  MESSAGE("max |d - box SDF|: 12-triangle cube " << worst_cube << ", subdivided box (" << boxes.triangles.size()
                                                 << " triangles) " << worst_box << ", hollow cube " << worst_hollow);
  CHECK(worst_cube <= EXACT);
  CHECK(worst_box <= EXACT);
  CHECK(worst_hollow <= EXACT);
  CHECK(d_hollow.signed_distance(Vec3(0, 0, 0)) == doctest::Approx(0.25));
  CHECK(d_hollow.signed_distance(Vec3(0.4, 0, 0)) == doctest::Approx(-0.1));
}

TEST_CASE("mesh SDF: closest() equals brute force, with and without a range, after moving the vertices") {
  mesh::SurfaceMesh ico = mesh::icosphere(Vec3(0, 0, 0), 1.0, 3);
  MeshDistance dist(ico);
  std::mt19937_64 rng(13);
  // A smooth non-rigid deformation keeps the surface closed and embedded.
  Points moved = ico.vertices;
  for (Index v = 0; v < moved.cols(); ++v) {
    const Vec3 p = moved.col(v);
    moved.col(v) = Vec3(1.3 * p.x() + 0.1 * std::sin(3 * p.y()), 0.8 * p.y(), p.z() + 0.2 * p.x() * p.x());
  }
  for (const Points* vertices : {&ico.vertices, &moved}) {
    dist.set_vertices(*vertices);
    Real worst = 0, worst_point = 0;
    int range_mismatch = 0;
    for (int s = 0; s < 1500; ++s) {
      const Vec3 x = random_point(rng, Vec3::Constant(-2), Vec3::Constant(2));
      const Real brute = brute_distance(*vertices, ico.triangles, x);
      const MeshHit hit = dist.closest(x);
      const auto& t = ico.triangles[static_cast<std::size_t>(hit.triangle)];
      worst = std::max(worst, std::abs(std::abs(hit.distance) - brute));
      // The reported point lies on the reported triangle, at the reported distance.
      worst_point = std::max(worst_point, triangle_distance(hit.point, vertices->col(t[0]), vertices->col(t[1]),
                                                            vertices->col(t[2])));
      worst_point = std::max(worst_point, std::abs((x - hit.point).norm() - std::abs(hit.distance)));
      const Real range = 0.2;
      const MeshHit near = dist.closest(x, range);
      if (near.found != (brute <= range) || (near.found && near.distance != hit.distance)) ++range_mismatch;
    }
    MESSAGE("max |d - brute force| " << worst << ", closest point off by " << worst_point << ", range mismatches "
                                     << range_mismatch);
    CHECK(worst <= EXACT);
    CHECK(worst_point <= EXACT);
    CHECK(range_mismatch == 0);
  }
  CHECK_THROWS_AS(dist.set_vertices(Points::Zero(3, 5)), MeshError);
  CHECK_THROWS_AS(MeshDistance(ico.vertices, {mesh::Triangle(0, 1, 9999)}), MeshError);
  CHECK_THROWS_AS(MeshDistance(ico.vertices, {}), MeshError);
}

TEST_CASE("mesh SDF: inside() by ray parity agrees with the pseudonormal sign") {
  std::mt19937_64 rng(19);
  const std::vector<std::pair<std::string, mesh::SurfaceMesh>> meshes = {
      {"icosphere", mesh::icosphere(Vec3(0.1, 0.2, 0.3), 0.8, 3)},
      {"L prism", l_prism()},
      {"subdivided box", box_surface(Vec3(-0.5, -0.5, -0.5), Vec3(0.5, 0.5, 0.5), Vec3i(4, 4, 4))},
      {"hollow cube", mesh::read_obj(mesh_path("hollow_cube.obj"))},
      {"torus", mesh::read_obj(mesh_path("torus.obj"))},
  };
  for (const auto& [name, m] : meshes) {
    const MeshDistance dist(m);
    const Vec3 lo = dist.bounds_min(), hi = dist.bounds_max(), pad = 0.2 * (hi - lo);
    int disagree = 0, inside = 0;
    const int samples = 2000;
    for (int s = 0; s < samples; ++s) {
      // Half random, half on vertices and edge points of the mesh's own lattice
      // (for the boxes: exactly in the planes of faces, where rays graze edges).
      Vec3 x = random_point(rng, lo - pad, hi + pad);
      if (s % 2 == 1) {
        const auto& t = m.triangles[static_cast<std::size_t>(s) % m.triangles.size()];
        x = m.vertices.col(t[0]) + 0.5 * (m.vertices.col(t[1]) - m.vertices.col(t[0])) +
            (s % 4 == 1 ? 0.01 : -0.01) * random_unit(rng);
      }
      const bool by_ray = dist.inside(x);
      inside += by_ray ? 1 : 0;
      if (by_ray != (dist.signed_distance(x) < 0)) ++disagree;
    }
    MESSAGE(name << ": " << samples << " points, " << inside << " inside, " << disagree << " disagreements");
    CHECK(disagree == 0);
  }
}

TEST_CASE("mesh SDF: segment_hits finds every crossing and the first one, against brute force") {
  // A plate 0.1 thick: a segment across it meets it twice, one ending inside once.
  const MeshDistance plate(box_surface(Vec3(0.45, 0, 0), Vec3(0.55, 1, 1), Vec3i(1, 4, 4)));
  const Vec3 y(0, 0.3, 0.6);
  const SegmentHits across = plate.segment_hits(Vec3(0.3, 0, 0) + y, Vec3(0.7, 0, 0) + y);
  CHECK(across.count == 2);
  CHECK(across.first == doctest::Approx(0.375));
  CHECK(across.point.x() == doctest::Approx(0.45));
  CHECK(plate.segment_hits(Vec3(0.3, 0, 0) + y, Vec3(0.5, 0, 0) + y).count == 1);
  CHECK(plate.segment_hits(Vec3(0.1, 0, 0) + y, Vec3(0.4, 0, 0) + y).count == 0);
  CHECK(plate.segment_hits(Vec3(0.5, 0, 0) + y, Vec3(0.5, 0, 0) + y).count == 0);  // a point inside
  // Through a shared edge (y = 0.25, z = 0.5 is a lattice node of the faces): not
  // missed, and counted once per face.
  CHECK(plate.segment_hits(Vec3(0.3, 0.25, 0.5), Vec3(0.7, 0.25, 0.5)).count == 2);
  CHECK(plate.segment_hits(Vec3(0.3, 0.375, 0.625), Vec3(0.7, 0.375, 0.625)).count == 2);

  // Random segments against an icosphere: the crossings' parity is the change of
  // inside(), and first/point/triangle equal the brute-force nearest meeting.
  std::mt19937_64 rng(23);
  const mesh::SurfaceMesh m = mesh::icosphere(Vec3(0.1, 0.2, 0.3), 0.8, 3);
  const MeshDistance sphere(m);
  int disagree = 0, crossing = 0;
  for (int s = 0; s < 2000; ++s) {
    const Vec3 a = random_point(rng, Vec3(-1, -1, -1), Vec3(1.2, 1.4, 1.6));
    const Vec3 b = a + 0.5 * random_unit(rng);
    const SegmentHits h = sphere.segment_hits(a, b);
    crossing += h.count > 0;
    if ((h.count % 2 == 1) != (sphere.inside(a) != sphere.inside(b))) ++disagree;
    Real first = std::numeric_limits<Real>::infinity();
    for (const auto& t : m.triangles) {
      const Vec3 p0 = m.vertices.col(t[0]), e1 = m.vertices.col(t[1]) - p0, e2 = m.vertices.col(t[2]) - p0;
      const Vec3 n = e1.cross(e2);
      const Real den = n.dot(b - a);
      if (den == 0) continue;
      const Real u = n.dot(p0 - a) / den;
      if (u < 0 || u > 1) continue;
      const Vec3 x = a + u * (b - a) - p0;
      // Barycentric coordinates of x in (e1, e2).
      const Real d11 = e1.dot(e1), d12 = e1.dot(e2), d22 = e2.dot(e2), x1 = x.dot(e1), x2 = x.dot(e2);
      const Real det = d11 * d22 - d12 * d12;
      const Real v = (d22 * x1 - d12 * x2) / det, w = (d11 * x2 - d12 * x1) / det;
      if (v >= 0 && w >= 0 && v + w <= 1) first = std::min(first, u);
    }
    if (std::isfinite(first)) {
      CHECK(h.first == doctest::Approx(first).epsilon(1e-9));
      CHECK((h.point - (a + first * (b - a))).norm() < 1e-9);
      CHECK(std::abs(sphere.unsigned_distance(h.point)) < 1e-9);
    } else {
      CHECK(h.count == 0);
    }
  }
  MESSAGE(crossing << " of 2000 segments cross the sphere, " << disagree << " disagree with inside()");
  CHECK(crossing > 200);
  CHECK(disagree == 0);
}

TEST_CASE("mesh SDF: mesh_solid and inside_out, mesh_region") {
  const mesh::SurfaceMesh cube = mesh::read_obj(mesh_path("cube.obj"));
  const StaticSolid solid = mesh_solid(cube), container = mesh_solid(cube, true);
  std::mt19937_64 rng(17);
  int flips = 0;
  for (int s = 0; s < 500; ++s) {
    const Vec3 x = random_point(rng, Vec3::Constant(-1), Vec3::Constant(1));
    flips += solid(x) == -container(x) && solid(x) == doctest::Approx(box_sdf(Vec3::Constant(-0.5), Vec3::Constant(0.5), x))
                 ? 1 : 0;
  }
  CHECK(flips == 500);
  CHECK(container(Vec3(0, 0, 0)) == doctest::Approx(0.5));

  // A band clamps the distance, keeping exact values inside it and the signs outside.
  const mesh::SurfaceMesh ball = mesh::icosphere(Vec3(0, 0, 0), 0.7, 3);
  const MeshDistance exact(ball);
  const Real band = 0.1;
  const StaticSolid banded = mesh_solid(ball, false, band), banded_out = mesh_solid(ball, true, band);
  int wrong_band = 0;
  for (int s = 0; s < 1000; ++s) {
    const Vec3 x = random_point(rng, Vec3::Constant(-1), Vec3::Constant(1));
    const Real d = exact.signed_distance(x);
    const Real expected = std::clamp(d, -band, band);
    if (banded(x) != expected || banded_out(x) != -expected) ++wrong_band;
  }
  CHECK(wrong_band == 0);
  CHECK_THROWS_AS(mesh_solid(ball, false, 0.0), MeshError);

  const auto region = mesh_region(cube);
  CHECK(region(Vec3(0.1, 0.2, -0.3)));
  CHECK(!region(Vec3(0.6, 0, 0)));
  CHECK(!region(Vec3(0.4, 0.4, 0.6)));
}

TEST_CASE("mesh SDF: narrow-band node samples are exact inside the band and keep their signs outside") {
  grid::MacGrid g;
  g.resolution = Vec3i(30, 32, 34);
  g.origin = Vec3(-1, -1.1, -1.2);
  g.dx = 0.07;
  const Real band = 2.5 * g.dx;
  struct Case {
    std::string name;
    mesh::SurfaceMesh surface;
    bool crosses_grid;  // some nodes lie within the band
  };
  // A ball inside the grid, one crossing the grid's side, one containing the
  // whole grid (every far node inside), and a hollow cube (a positive cavity
  // enclosed by negative far nodes).
  const std::vector<Case> cases = {
      {"ball", mesh::icosphere(Vec3(0, 0, 0), 0.6, 3), true},
      {"ball across the wall", mesh::icosphere(Vec3(0.9, 0.1, 0), 0.5, 3), true},
      {"ball around the grid", mesh::icosphere(Vec3(0, 0, 0), 3.0, 3), false},
      {"hollow cube", mesh::read_obj(mesh_path("hollow_cube.obj")), true},
  };
  grid::Array3<Real> phi;
  for (const Case& c : cases) {
    const MeshDistance dist(c.surface);
    sample_mesh_sdf_at_nodes(g, dist, band, phi);
    REQUIRE(phi.size() == g.node_shape());
    Real worst = 0;
    Index in_band = 0, clamped = 0, wrong = 0;
    for (Index n = 0; n < phi.count(); ++n) {
      const Vec3i ijk = phi.coord(n);
      const Real exact = dist.signed_distance(g.node_position(ijk.x(), ijk.y(), ijk.z()));
      if (std::abs(exact) < band) {
        ++in_band;
        worst = std::max(worst, std::abs(phi[n] - exact));
      } else {
        ++clamped;
        if (phi[n] != (exact < 0 ? -band : band)) ++wrong;
      }
    }
    MESSAGE(c.name << ": " << in_band << " nodes in the band (max error " << worst << "), " << clamped
                   << " clamped, " << wrong << " with a wrong clamped value");
    CHECK(worst <= EXACT);
    CHECK(wrong == 0);
    CHECK((in_band > 0) == c.crosses_grid);
  }
  // The returning overload gives the same samples as the in-place one (phi holds the last case).
  CHECK((sample_mesh_sdf_at_nodes(g, MeshDistance(cases.back().surface), band).data() == phi.data()));
  CHECK_THROWS_AS(sample_mesh_sdf_at_nodes(g, MeshDistance(cases[0].surface), 0.0), SimulationError);
}

// Timing only (tests never assert on wall-clock): run with
//   fsicut_tests -tc="mesh SDF: timing*" --no-skip
TEST_CASE("mesh SDF: timing of narrow-band node sampling" * doctest::skip()) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); };
  const mesh::TetMesh beam = mesh::box_mesh(Vec3(0.45, 0.0, 0.45), Vec3(0.55, 0.7, 0.55), Vec3i(4, 28, 4));
  const mesh::SurfaceMesh ball = mesh::icosphere(Vec3(0.5, 0.5, 0.5), 0.3, 4);
  for (const int n : {64, 100}) {
    grid::MacGrid g;
    g.resolution = Vec3i::Constant(n);
    g.dx = 1.0 / n;
    grid::Array3<Real> phi;
    for (int which = 0; which < 2; ++which) {
      const bool is_beam = which == 0;
      auto start = Clock::now();
      MeshDistance dist = is_beam ? MeshDistance(beam.rest, beam.boundary) : MeshDistance(ball);
      const double build = seconds(start);
      const Index triangles = static_cast<Index>(dist.triangles().size());
      start = Clock::now();
      dist.set_vertices(dist.vertices());
      const double rebuild = seconds(start);
      sample_mesh_sdf_at_nodes(g, dist, 3 * g.dx, phi);
      constexpr int REPEAT = 3;
      start = Clock::now();
      for (int r = 0; r < REPEAT; ++r) sample_mesh_sdf_at_nodes(g, dist, 3 * g.dx, phi);
      const double sample = seconds(start) / REPEAT;
      const mesh::SurfaceMesh surface = is_beam ? mesh::SurfaceMesh{beam.rest, beam.boundary} : ball;
      start = Clock::now();
      sample_solid_at_nodes(g, mesh_solid(surface));
      const double unbanded = seconds(start);
      start = Clock::now();
      sample_solid_at_nodes(g, mesh_solid(surface, false, 5 * g.dx));
      const double banded = seconds(start);
      MESSAGE(n << "^3 grid, " << std::string(is_beam ? "box beam" : "icosphere") << " (" << triangles
                << " triangles): build " << build * 1e3 << " ms, set_vertices " << rebuild * 1e3
                << " ms, band 3 dx " << sample * 1e3 << " ms; sample_solid_at_nodes(mesh_solid): unbounded " << unbanded * 1e3 << " ms, band 5 dx "
                << banded * 1e3 << " ms");
    }
  }
}
