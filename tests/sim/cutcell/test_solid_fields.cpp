// The moving solids seen by the liquid's grid (lib/sim/cutcell/solid_fields.hpp):
// a box solid's node SDF (negative inside, positive outside, the exact distance
// within the band, |grad| = 1 beside a face), the open face fractions (0 inside,
// 1 away, the exact open area beside a face at a known offset, the same as
// computed from scratch after the body moved), the patches Q, and the surface
// velocity of a translating and a rotating body.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/sim/cutcell/solid_fields.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

using namespace fsicut;

namespace {

constexpr Real DX = 0.1;
// Every node sample is moved out of the solid by this much (levelset::resolve_surface_ties).
constexpr Real TIE = levelset::SURFACE_TIE_CELLS * DX;
// Box faces off the grid planes: x = 0.43 and 1.07, y = 0.36 and 1.04,
// z = 0.33 and 1.07, in a grid of 16 x 12 x 12 cells of 0.1 m (longer in x,
// so that some nodes lie beyond the band); a shallow pool on the floor below
// it (the solid fields exist with liquid only).
const Vec3 BOX_MIN(0.43, 0.36, 0.33), BOX_MAX(1.07, 1.04, 1.07);
const char* BOX_SCENE = R"({
  "grid": { "resolution": [16, 12, 12], "cell_size": 0.1 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1.6, 0.2, 1.2] } ] },
  "solids": [ { "name": "box", "mesh": { "type": "box", "min": [0.43, 0.36, 0.33], "max": [1.07, 1.04, 1.07],
                "cells": [2, 2, 2] }, "density": 500, "youngs_modulus": 1e5 } ] })";

// The exact signed distance of the box at x (negative inside).
Real box_distance(const Vec3& x, const Vec3& lo = BOX_MIN, const Vec3& hi = BOX_MAX) {
  const Vec3 d = (lo - x).cwiseMax(x - hi);
  const Real outside = d.cwiseMax(0.0).norm();
  return outside > 0 ? outside : d.maxCoeff();
}

Real node_phi(const sim::CutCellSimulator& s, int i, int j, int k) { return s.liquid->solid_phi(i, j, k); }

// The open fraction of a face crossed by a planar solid face `offset` [m] from
// its open edge: the open part's length over dx, less the tie bias.
Real open_area(Real offset) { return (offset - TIE) / DX; }

// Every face's fraction equals a fresh computation from the node SDF.
bool fractions_as_from_scratch(const sim::CutCellSimulator& s) {
  cutcell::FaceFractions fresh;
  cutcell::compute_face_fractions(s.liquid->grid, s.liquid->solid_phi, fresh);
  for (int a = 0; a < 3; ++a)
    if (fresh[a].data() != s.liquid->fractions[a].data()) return false;
  return true;
}

}  // namespace

TEST_CASE("solid fields: a box's node SDF is its exact distance within the band - negative inside") {
  const sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  REQUIRE(s.liquid);
  const grid::MacGrid& g = s.liquid->grid;
  const Real band = sim::SOLID_BAND_CELLS * DX;
  int inside = 0, outside = 0, beyond = 0;
  // The nodes off the domain walls (those on them copy their inward neighbour).
  for (int k = 1; k < 12; ++k)
    for (int j = 1; j < 12; ++j)
      for (int i = 1; i < 16; ++i) {
        const Real exact = box_distance(g.node_position(i, j, k));
        const Real phi = node_phi(s, i, j, k);
        CAPTURE(g.node_position(i, j, k).transpose());
        if (std::abs(exact) < band - 1e-9) {
          CHECK(phi == doctest::Approx(exact - TIE).epsilon(1e-12).scale(1e-3));
          inside += exact < 0;
          outside += exact > 0;
        } else {
          // Beyond the band: the sign, and at least the band's distance.
          CHECK((exact < 0 ? phi <= -band : phi >= band - 2 * TIE));
          ++beyond;
        }
      }
  CHECK(inside > 0);
  CHECK(outside > 0);
  CHECK(beyond > 0);
  CHECK(node_phi(s, 7, 7, 7) == doctest::Approx(-0.27 - TIE).epsilon(1e-12));  // centre: 0.27 m from x = 0.43
  CHECK(node_phi(s, 2, 7, 7) == doctest::Approx(0.23 - TIE).epsilon(1e-12));   // 0.23 m left of that face
}

TEST_CASE("solid fields: the gradient of phi has norm 1 beside a face of the box - away from its edges") {
  const sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  // Nodes x = 0.2 .. 0.5, y and z = 0.6 .. 0.8: the face x = 0.43 is the
  // nearest feature of each and of its neighbours, across it too.
  for (int i = 2; i <= 5; ++i)
    for (int j = 6; j <= 8; ++j)
      for (int k = 6; k <= 8; ++k) {
        const Vec3 grad((node_phi(s, i + 1, j, k) - node_phi(s, i - 1, j, k)) / (2 * DX),
                        (node_phi(s, i, j + 1, k) - node_phi(s, i, j - 1, k)) / (2 * DX),
                        (node_phi(s, i, j, k + 1) - node_phi(s, i, j, k - 1)) / (2 * DX));
        CAPTURE(i);
        CAPTURE(j);
        CAPTURE(k);
        CHECK(grad.norm() == doctest::Approx(1).epsilon(1e-9));
        CHECK(grad.x() == doctest::Approx(-1).epsilon(1e-9));  // phi falls into the solid
      }
}

TEST_CASE("solid fields: face fractions are 0 inside - 1 away - the exact open area beside a face - closed on the walls") {
  const sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  const cutcell::FaceFractions& f = s.liquid->fractions;
  // A y-face at y = 0.7 spanning x 0.4 .. 0.5: open left of x = 0.43, 0.3 of it.
  CHECK(f[1](4, 7, 7) == doctest::Approx(open_area(0.03)).epsilon(1e-12));
  CHECK(f[1](4, 7, 7) == doctest::Approx(0.3).epsilon(1e-5));
  // A z-face at z = 0.7 spanning x 0.4 .. 0.5: the same.
  CHECK(f[2](4, 7, 7) == doctest::Approx(open_area(0.03)).epsilon(1e-12));
  // An x-face at x = 0.7 spanning y 0.3 .. 0.4: open below y = 0.36, 0.6 of it.
  CHECK(f[0](7, 3, 7) == doctest::Approx(open_area(0.06)).epsilon(1e-12));
  // An x-face at x = 0.7 spanning z 0.3 .. 0.4: open below z = 0.33, 0.3 of it.
  CHECK(f[0](7, 7, 3) == doctest::Approx(open_area(0.03)).epsilon(1e-12));
  // A y-face at y = 0.7 spanning x 1.0 .. 1.1: open right of x = 1.07, 0.3 of it.
  CHECK(f[1](10, 7, 7) == doctest::Approx(open_area(0.03)).epsilon(1e-12));
  // Inside the box.
  CHECK(f[0](7, 7, 7) == 0);
  CHECK(f[1](7, 7, 7) == 0);
  CHECK(f[2](7, 7, 7) == 0);
  // Away from it.
  CHECK(f[0](2, 8, 8) == 1);
  CHECK(f[1](1, 1, 1) == 1);
  CHECK(f[2](10, 11, 1) == 1);
  // The domain walls are closed.
  CHECK(f[0](0, 5, 5) == 0);
  CHECK(f[1](5, 12, 5) == 0);
  // Every cut face lies strictly between, and the incremental update equals a fresh computation.
  for (int a = 0; a < 3; ++a)
    for (Real v : f[a].data()) CHECK((v >= 0 && v <= 1));
  CHECK(fractions_as_from_scratch(s));
}

TEST_CASE("solid fields: after the body moves the fields follow it - faces it left reopen") {
  sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  const cutcell::FaceFractions& f = s.liquid->fractions;
  REQUIRE(f[1](10, 7, 7) == doctest::Approx(open_area(0.03)).epsilon(1e-12));  // x 1.0 .. 1.1, open right of 1.07
  s.solids[0].x.row(0).array() -= 0.2;  // now x = 0.23 .. 0.87
  sim::update_solid_fields(s);
  const Vec3 lo = BOX_MIN - Vec3(0.2, 0, 0), hi = BOX_MAX - Vec3(0.2, 0, 0);
  CHECK(node_phi(s, 5, 7, 7) == doctest::Approx(box_distance(Vec3(0.5, 0.7, 0.7), lo, hi) - TIE).epsilon(1e-12));
  CHECK(node_phi(s, 10, 7, 7) == doctest::Approx(box_distance(Vec3(1.0, 0.7, 0.7), lo, hi) - TIE).epsilon(1e-12));
  CHECK(node_phi(s, 10, 7, 7) > 0);
  CHECK(f[1](10, 7, 7) == 1);                                      // reopened
  CHECK(f[1](8, 7, 7) == doctest::Approx(open_area(0.03)).epsilon(1e-12));  // x 0.8 .. 0.9, open right of 0.87
  CHECK(f[1](2, 7, 7) == doctest::Approx(open_area(0.03)).epsilon(1e-12));  // x 0.2 .. 0.3, open left of 0.23
  CHECK(f[1](4, 7, 7) == 0);                                        // now inside
  CHECK(fractions_as_from_scratch(s));
}

TEST_CASE("solid fields: the patches Q cover the box's surface - their area-weighted normals close") {
  const sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  REQUIRE(s.surfaces.patches.size() == 1);
  const Vec3 e = BOX_MAX - BOX_MIN;
  Real area = 0;
  Vec3 flux = Vec3::Zero();
  for (const cutcell::SurfacePatch& p : s.surfaces.patches[0]) {
    area += p.area;
    flux += p.area * p.normal;
    CHECK(p.normal.norm() == doctest::Approx(1));
  }
  CHECK(area == doctest::Approx(2 * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x())).epsilon(1e-9));
  CHECK(flux.norm() < 1e-12);
  // A patch on the face x = 0.43 points into the solid: +x.
  bool found = false;
  for (const cutcell::SurfacePatch& p : s.surfaces.patches[0])
    if (p.normal.isApprox(Vec3(1, 0, 0), 1e-12)) found = true;
  CHECK(found);
}

TEST_CASE("solid fields: make_surfaces lists the bodies then the obstacles - only bodies have patches") {
  const sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  CHECK(s.surfaces.meshes.size() == 1);
  CHECK_FALSE(s.surfaces.fixed);  // a body: recomputed every substep
  const Points wall = (Points(3, 3) << 0, 1, 0, 0, 0, 1, 0, 0, 0).finished();
  const sim::SolidSurfaces made =
      sim::make_surfaces(s.solids, {levelset::MeshDistance(wall, std::vector<mesh::Triangle>{{0, 1, 2}})});
  REQUIRE(made.meshes.size() == 2);
  CHECK(made.meshes[0].vertices() == s.solids[0].x);
  CHECK(made.meshes[0].triangles() == s.solids[0].mesh.boundary);
  CHECK(made.meshes[1].vertices() == wall);
  CHECK(made.patches.size() == 1);
  // Static obstacles alone: computed once, then fixed.
  const sim::CutCellSimulator obstacles_only = test::coupled_state(R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.25, 1] } ] },
    "obstacles": [ { "type": "box", "min": [0.3, 0, 0.3], "max": [0.7, 0.5, 0.7] } ] })");
  CHECK(obstacles_only.surfaces.meshes.size() == 1);
  CHECK(obstacles_only.surfaces.patches.empty());
  CHECK(obstacles_only.surfaces.fixed);
}

TEST_CASE("solid fields: solid_velocity is a translating body's velocity near it - zero beyond the band") {
  sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  const Vec3 v(0.3, -0.2, 0.1);
  s.solids[0].v.colwise() = v;
  const fluid::SolidVelocity velocity = sim::solid_velocity(s);
  REQUIRE(velocity);
  for (const Vec3& x : {Vec3(0.35, 0.7, 0.7), Vec3(0.6, 0.7, 0.7), Vec3(0.75, 0.7, 0.7), Vec3(1.15, 1.15, 1.15),
                        Vec3(0.75, 0.2, 0.75)}) {
    CAPTURE(x.transpose());
    CHECK((velocity(x) - v).norm() < 1e-12);
  }
  // 0.65 m from the box's nearest corner, past the band of 0.5 m.
  CHECK(velocity(Vec3(0, 0, 0)) == Vec3::Zero());
}

TEST_CASE("solid fields: solid_velocity of a rotating body is its velocity at the nearest surface point") {
  sim::CutCellSimulator s = test::coupled_state(BOX_SCENE);
  const Vec3 omega(0, 0, 2), c = (BOX_MIN + BOX_MAX) / 2;
  solid::Body& b = s.solids[0];
  for (Index i = 0; i < b.x.cols(); ++i) b.v.col(i) = omega.cross(b.x.col(i) - c);
  const fluid::SolidVelocity velocity = sim::solid_velocity(s);
  // Beside the face x = 0.43 (outside and inside): the point of that face
  // straight across; beside the face y = 1.04 likewise.
  const struct {
    Vec3 x, surface;
  } cases[] = {{Vec3(0.35, 0.7, 0.75), Vec3(0.43, 0.7, 0.75)},
               {Vec3(0.47, 0.55, 0.6), Vec3(0.43, 0.55, 0.6)},
               {Vec3(0.9, 1.15, 0.5), Vec3(0.9, 1.04, 0.5)}};
  for (const auto& t : cases) {
    CAPTURE(t.x.transpose());
    CHECK((velocity(t.x) - omega.cross(t.surface - c)).norm() < 1e-12);
  }
  // No bodies: no surface velocity (static obstacles are still).
  const sim::CutCellSimulator pool = test::coupled_state(R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.25, 1] } ] } })");
  CHECK_FALSE(sim::solid_velocity(pool));
}
