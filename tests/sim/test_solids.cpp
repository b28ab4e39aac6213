#include <doctest/doctest.h>

#include "lib/core/error.hpp"
#include "lib/sim/solids.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using test::require_error;

namespace {

scene::SolidDesc beam_desc() {
  scene::SolidDesc d;
  d.name = "beam";
  d.density = 1000;
  d.youngs_modulus = 1e5;
  d.poisson_ratio = 0.3;
  d.pointer = "/solids/0";
  d.mesh.pointer = "/solids/0/mesh";
  d.mesh.min = Vec3(0, 0, 0);
  d.mesh.max = Vec3(1, 1, 1);
  d.mesh.cells = Vec3i(3, 3, 3);
  return d;
}

}  // namespace

TEST_CASE("body_spec copies the material and pins the nodes in box and sphere regions") {
  scene::SolidDesc d = beam_desc();
  d.damping.mass = 0.5;
  d.damping.stiffness = 0.01;
  d.velocity = Vec3(1, -2, 0.5);
  d.initial_scale = 0.5;
  d.element = scene::SolidDesc::Element::quadratic;
  scene::Shape box, sphere;
  box.type = scene::Shape::Type::box;
  box.min = Vec3(-1, -1, -1);
  box.max = Vec3(0, 2, 2);
  sphere.type = scene::Shape::Type::sphere;
  sphere.center = Vec3(1, 1, 1);
  sphere.radius = 1e-3;
  d.pinned = {box, sphere};
  const solid::BodySpec spec = sim::body_spec(d, "scene.json");
  CHECK(spec.name == "beam");
  CHECK(spec.density == 1000);
  CHECK(spec.youngs_modulus == 1e5);
  CHECK(spec.poisson_ratio == 0.3);
  CHECK(spec.tau_m == 0.5);
  CHECK(spec.tau_k == 0.01);
  CHECK(spec.velocity == Vec3(1, -2, 0.5));
  CHECK(spec.initial_scale == 0.5);
  CHECK(spec.element == solid::ElementOrder::quadratic);
  REQUIRE(spec.pinned);
  CHECK(spec.pinned(Vec3(0, 0.5, 0.5)));    // on the box's closed face
  CHECK(!spec.pinned(Vec3(1e-9, 0.5, 0.5)));
  CHECK(spec.pinned(Vec3(1, 1, 1 + 1e-3)));  // on the sphere
  CHECK(!spec.pinned(Vec3(1, 1, 1 + 2e-3)));
  CHECK(!sim::body_spec(beam_desc(), "scene.json").pinned);
}

TEST_CASE("make_solid names the scene file and JSON pointer of bad material values and meshes") {
  scene::SolidDesc d = beam_desc();
  d.poisson_ratio = 0.5;
  require_error<SceneError>([&] { sim::make_solid(d, "scene.json"); },
                            {"scene.json: /solids/0/poisson_ratio: must be in [0, 0.5)"});
  d = beam_desc();
  d.density = -1;
  require_error<SceneError>([&] { sim::make_solid(d, "scene.json"); }, {"scene.json: /solids/0/density: "});
  d = beam_desc();
  d.damping.stiffness = -1;
  require_error<SceneError>([&] { sim::make_solid(d, "scene.json"); },
                            {"scene.json: /solids/0/damping/stiffness: must be >= 0"});
  d = beam_desc();
  scene::Shape obj;
  obj.type = scene::Shape::Type::obj;
  d.pinned = {obj};
  require_error<SceneError>([&] { sim::make_solid(d, "scene.json"); },
                            {"scene.json: /solids/0/pinned/0: pinned regions must be boxes or spheres"});
  // The mesh is checked before the material.
  d = beam_desc();
  d.density = -1;
  d.mesh.cells = Vec3i(0, 1, 1);
  require_error<SceneError>([&] { sim::make_solid(d, "scene.json"); }, {"scene.json: /solids/0/mesh/cells: "});
  // A mesh the body refuses: tets too small to represent at these coordinates.
  d = beam_desc();
  d.mesh.min = Vec3(1e15, 0, 0);
  d.mesh.max = Vec3(1e15 + 1, 1, 1);  // the spacing 0.0625 is below the round-off 0.125
  d.mesh.cells = Vec3i(16, 1, 1);
  require_error<MeshError>([&] { sim::make_solid(d, "scene.json"); },
                           {"scene.json: /solids/0/mesh: solid 'beam': tet ", "non-positive rest volume"});
}

TEST_CASE("make_solid builds the body of the scene's description") {
  const solid::Body b = sim::make_solid(beam_desc(), "scene.json");
  CHECK(b.name == "beam");
  CHECK(b.num_nodes() == 64);
  CHECK(b.total_mass() == doctest::Approx(1000).epsilon(1e-12));
}
