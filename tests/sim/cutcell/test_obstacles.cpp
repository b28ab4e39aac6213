#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/sim/cutcell/obstacles.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::levelset;
using namespace fsicut::sim;

namespace {

Real box_sdf(const Vec3& lo, const Vec3& hi, const Vec3& x) {
  const Vec3 q = (x - 0.5 * (lo + hi)).cwiseAbs() - 0.5 * (hi - lo);
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), Real(0));
}

Vec3 random_point(std::mt19937_64& rng, const Vec3& lo, const Vec3& hi) {
  std::uniform_real_distribution<Real> u(0, 1);
  return lo + Vec3(u(rng), u(rng), u(rng)).cwiseProduct(hi - lo);
}

std::string mesh_path(const std::string& file) { return (test::source_dir() / "meshes" / file).string(); }

}  // namespace

TEST_CASE("static_solid is the union of the box and sphere obstacles and the obj ones passed in") {
  scene::Shape box, ball, obj;
  box.type = scene::Shape::Type::box;
  box.min = Vec3(0, 0, 0);
  box.max = Vec3(1, 1, 1);
  ball.type = scene::Shape::Type::sphere;
  ball.center = Vec3(3, 0, 0);
  ball.radius = 0.5;
  const StaticSolid both = static_solid({box, ball});
  CHECK(both(Vec3(0.5, 0.5, 0.5)) == doctest::Approx(-0.5));
  CHECK(both(Vec3(3, 0, 0)) == doctest::Approx(-0.5));
  CHECK(both(Vec3(3, 2, 0)) == doctest::Approx(1.5));
  scene::Shape container = box;
  container.inside_out = true;
  CHECK(static_solid({container})(Vec3(0.5, 0.5, 0.5)) == doctest::Approx(0.5));
  CHECK(!static_solid({}));
  obj.type = scene::Shape::Type::obj;
  CHECK_THROWS_AS(static_solid({box, obj}), SimulationError);
}

TEST_CASE("obstacles: obj solids and fluid regions read from the scene, errors naming the scene pointer") {
  scene::Shape obstacle;
  obstacle.type = scene::Shape::Type::obj;
  obstacle.path = mesh_path("cube.obj");
  obstacle.inside_out = true;
  obstacle.pointer = "/obstacles/1";
  scene::Shape box;
  box.type = scene::Shape::Type::box;
  const auto extra = obj_obstacle_solids({box, obstacle}, "scene.json");
  REQUIRE(extra.size() == 1);
  CHECK(extra[0](Vec3(0, 0, 0)) == doctest::Approx(0.5));
  CHECK(obj_obstacle_solids({obstacle}, "scene.json", 0.2)[0](Vec3(0, 0, 0)) == doctest::Approx(0.2));
  const StaticSolid all = static_solid({obstacle}, obj_obstacle_solids({obstacle}, "scene.json"));
  CHECK(all(Vec3(0.4, 0, 0)) == doctest::Approx(0.1));
  const auto tests = obj_region_tests({obstacle}, "scene.json");
  REQUIRE(tests.size() == 1);
  CHECK(tests[0](Vec3(0, 0, 0)));

  obstacle.path = mesh_path("no_such.obj");
  try {
    obj_obstacle_solids({obstacle}, "scene.json");
    FAIL("missing OBJ accepted");
  } catch (const MissingInputError& e) {
    MESSAGE(std::string(e.what()));
    CHECK(std::string(e.what()).find("no_such.obj") != std::string::npos);
    CHECK(std::string(e.what()).find("(used by scene.json: /obstacles/1)") != std::string::npos);
  }
  obstacle.path = (test::source_dir() / "tests/data/meshes/open.obj").string();
  try {
    obj_region_tests({obstacle}, "scene.json");
    FAIL("open OBJ accepted");
  } catch (const MeshError& e) {
    MESSAGE(std::string(e.what()));
    CHECK(std::string(e.what()).find("(used by scene.json: /obstacles/1)") != std::string::npos);
  }
}

TEST_CASE("obstacle_surfaces: boxes and obj meshes - not spheres or containers") {
  scene::Shape box;
  box.type = scene::Shape::Type::box;
  box.min = Vec3(0.1, -0.2, 0);
  box.max = Vec3(0.3, 0.5, 0.02);  // a plate 0.02 m thick
  scene::Shape ball;
  ball.type = scene::Shape::Type::sphere;
  ball.radius = 0.1;
  scene::Shape container = box;
  container.inside_out = true;
  scene::Shape cube;
  cube.type = scene::Shape::Type::obj;
  cube.path = mesh_path("cube.obj");
  cube.pointer = "/obstacles/3";
  const std::vector<MeshDistance> surfaces = obstacle_surfaces({box, ball, container, cube}, "scene.json");
  REQUIRE(surfaces.size() == 2);
  CHECK(surfaces[0].triangles().size() == 12);
  // The box's surface is the analytic box's, signs included (outward triangles).
  std::mt19937_64 rng(5);
  int wrong = 0;
  for (int s = 0; s < 500; ++s) {
    const Vec3 x = random_point(rng, Vec3(0, -0.3, -0.1), Vec3(0.4, 0.6, 0.12));
    if (std::abs(surfaces[0].signed_distance(x) - box_sdf(box.min, box.max, x)) > 1e-12) ++wrong;
  }
  CHECK(wrong == 0);
  CHECK(surfaces[0].segment_hits(Vec3(0.2, 0, -0.01), Vec3(0.2, 0, 0.03)).count == 2);
  CHECK(surfaces[1].inside(Vec3(0, 0, 0)));
  cube.path = mesh_path("no_such.obj");
  CHECK_THROWS_AS(obstacle_surfaces({cube}, "scene.json"), MissingInputError);
}
