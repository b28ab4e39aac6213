// Particle paths against the solids' surfaces (lib/sim/cutcell/particle_paths.hpp):
// between start_particle_paths and stop_particles_at_solids, a particle whose
// path passes through a wall thinner than a cell, or enters it and stays, is
// put back on the side it came from, PATH_MARGIN_CELLS dx off the surface where
// it first met it; a path that meets no surface, or leaves the solid, is left
// alone; the starts of particles near a moving solid are carried with it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "lib/sim/cutcell/particle_paths.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

using namespace fsicut;

namespace {

constexpr Real DX = 0.05;
constexpr Real MARGIN = sim::PATH_MARGIN_CELLS * DX;
// A slab tank of 12 x 8 x 4 cells of 0.05 m, water left of a free wall half a
// cell thick at x = 0.31 .. 0.335 m (no grid node inside it), flush with the
// floor, the ceiling and the front and back walls.
const char* THIN_WALL = R"({ "gravity": [0, 0, 0],
  "grid": { "resolution": [12, 8, 4], "origin": [0, 0, 0], "cell_size": 0.05 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.25, 0.4, 0.2] } ] },
  "solids": [ { "name": "wall", "mesh": { "type": "box", "min": [0.31, 0, 0], "max": [0.335, 0.4, 0.2],
                "cells": [1, 8, 4] }, "density": 1000, "youngs_modulus": 1e6 } ] })";
constexpr Real WALL_LEFT = 0.31, WALL_RIGHT = 0.335;

bool anchored(const sim::ParticlePaths& paths, Index particle) {
  return std::any_of(paths.anchors.begin(), paths.anchors.end(),
                     [&](const sim::ParticlePaths::Anchor& a) { return a.particle == particle; });
}

bool close(const Vec3& a, const Vec3& b, Real tolerance = 1e-12) { return (a - b).norm() <= tolerance; }

}  // namespace

TEST_CASE("particle paths: a path through a thin wall or into it stops on its side - others are untouched") {
  sim::CutCellSimulator s = test::coupled_state(THIN_WALL);
  Points& x = s.liquid->particles;
  REQUIRE(x.cols() > 8);
  REQUIRE(s.surfaces.meshes.size() == 1);
  // Where six particles start (before advection).
  // Off the lines of the wall's mesh, so that no path meets it at an edge.
  const Vec3 through(0.28, 0.2, 0.11), into(0.29, 0.17, 0.065), along(0.29, 0.1, 0.11), far(0.05, 0.2, 0.11),
      leaving(0.32, 0.31, 0.12), grazing(0.2, 0.3, 0.16);
  const Vec3 starts[] = {through, into, along, far, leaving, grazing};
  for (int p = 0; p < 6; ++p) x.col(p) = starts[p];
  sim::ParticlePaths paths = sim::start_particle_paths(s);
  CHECK(paths.start.cols() == x.cols());
  CHECK(paths.start.col(0) == through);
  // The particles within PATH_ANCHOR_CELLS of the wall are anchored to it, not the far one.
  CHECK(anchored(paths, 0));
  CHECK(anchored(paths, 1));
  CHECK(anchored(paths, 2));
  CHECK_FALSE(anchored(paths, 3));
  for (const sim::ParticlePaths::Anchor& a : paths.anchors) {
    CHECK(a.body == 0);
    CHECK(a.barycentric.sum() == doctest::Approx(1));
  }

  // Where advection took them.
  const Vec3 through_end(0.40, 0.26, 0.11);   // through the wall, meets x = 0.31 a quarter of the way
  const Vec3 into_end(0.32, 0.17, 0.065);     // into the wall, nearer its left face
  const Vec3 along_end(0.30, 0.2, 0.11);      // beside it
  const Vec3 far_end(0.15, 0.25, 0.12);       // nowhere near it
  const Vec3 leaving_end(0.25, 0.31, 0.12);   // started inside it and left to the left
  const Vec3 grazing_end(0.305, 0.35, 0.16);  // up to just short of it
  const Vec3 ends[] = {through_end, into_end, along_end, far_end, leaving_end, grazing_end};
  for (int p = 0; p < 6; ++p) x.col(p) = ends[p];
  const Points before = x;

  const Index stopped = sim::stop_particles_at_solids(s, paths);
  CHECK(stopped == 2);
  // Through: at the first meeting (x = 0.31, y = 0.2 + 0.25 * 0.06), the margin back.
  CHECK(close(x.col(0), Vec3(WALL_LEFT - MARGIN, 0.215, 0.11)));
  // Into: back on the left face.
  CHECK(close(x.col(1), Vec3(WALL_LEFT - MARGIN, 0.17, 0.065)));
  // The rest, and every other particle, bit for bit where advection left them.
  for (Index p = 2; p < x.cols(); ++p) {
    CAPTURE(p);
    CHECK(x.col(p) == before.col(p));
  }
  CHECK(x.row(0).maxCoeff() < WALL_RIGHT);  // nothing beyond the wall
}

TEST_CASE("particle paths: a wall moving over a particle takes its start along - the particle ends before it") {
  sim::CutCellSimulator s = test::coupled_state(THIN_WALL);
  Points& x = s.liquid->particles;
  // A particle 0.02 m left of the wall, one 0.02 m right of it and one far away; none moves.
  const Vec3 left(0.29, 0.21, 0.115), right(0.355, 0.21, 0.115), away(0.05, 0.21, 0.115);
  x.col(0) = left;
  x.col(1) = right;
  x.col(2) = away;
  sim::ParticlePaths paths = sim::start_particle_paths(s);
  REQUIRE(anchored(paths, 0));
  REQUIRE(anchored(paths, 1));
  REQUIRE_FALSE(anchored(paths, 2));
  // The wall moves 0.04 m left (0.27 .. 0.295): over the left particle.
  const Vec3 d(-0.04, 0, 0);
  s.solids[0].x.colwise() += d;
  sim::update_solid_fields(s);
  const Points before = x;
  const Index stopped = sim::stop_particles_at_solids(s, paths);
  CHECK(stopped == 1);
  // The starts of the anchored particles moved with the wall; the others did not.
  CHECK(close(paths.start.col(0), left + d));
  CHECK(close(paths.start.col(1), right + d));
  CHECK(paths.start.col(2) == away);
  // The particle the wall passed over is back on its left face, the side it was on.
  CHECK(close(x.col(0), Vec3(WALL_LEFT - 0.04 - MARGIN, 0.21, 0.115)));
  // The one on the right: its path from its carried start leaves the wall behind, untouched.
  CHECK(x.col(1) == right);
  for (Index p = 1; p < x.cols(); ++p) CHECK(x.col(p) == before.col(p));
}

TEST_CASE("particle paths: a liquid without solids has no paths to test") {
  sim::CutCellSimulator pool = test::coupled_state(R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.25, 1] } ] } })");
  sim::ParticlePaths paths = sim::start_particle_paths(pool);
  CHECK(paths.start.cols() == 0);
  CHECK(paths.anchors.empty());
  const Points before = pool.liquid->particles;
  pool.liquid->particles.row(0).array() += 0.5;
  CHECK(sim::stop_particles_at_solids(pool, paths) == 0);
  CHECK(pool.liquid->particles.row(0) == (before.row(0).array() + 0.5).matrix());
}
