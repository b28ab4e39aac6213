#include <doctest/doctest.h>

#include <string>

#include "lib/core/error.hpp"
#include "lib/sim/cutcell/solids.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using test::require_error;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

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

TEST_CASE("a linear solid fewer than 6 elements thick is warned about - naming it and its stiffening and the remedy") {
  scene::SolidDesc d = beam_desc();
  d.mesh.min = Vec3(0, 0, -0.05);
  d.mesh.max = Vec3(1, 0.1, 0.05);
  d.mesh.cells = Vec3i(20, 4, 4);
  const std::string w = sim::linear_locking_warning(d, sim::make_solid(d, "scene.json"));
  MESSAGE(w);
  CHECK(contains(w, "solid \"beam\" has 4 linear elements through its thinnest dimension (0.1 m)"));
  // results/elements.jsonl: a 4-layer linear cantilever sags 0.825 of the converged deflection.
  CHECK(contains(w, "about 21 % too stiff"));
  CHECK(contains(w, "sags 0.825 of the converged deflection"));
  CHECK(contains(w, "use \"element\": \"quadratic\""));

  // The thinnest axis counts (ties: its fewest cells), and one element is 4 times too stiff.
  d.mesh.cells = Vec3i(20, 1, 6);
  const std::string thin = sim::linear_locking_warning(d, sim::make_solid(d, "scene.json"));
  CHECK(contains(thin, "has 1 linear element through"));
  CHECK(contains(thin, "about 300 % too stiff"));
  // Six layers or quadratic elements: no warning.
  d.mesh.cells = Vec3i(20, 6, 6);
  CHECK(sim::linear_locking_warning(d, sim::make_solid(d, "scene.json")).empty());
  d.mesh.cells = Vec3i(20, 2, 2);
  d.element = scene::SolidDesc::Element::quadratic;
  CHECK(sim::linear_locking_warning(d, sim::make_solid(d, "scene.json")).empty());
}

TEST_CASE("thickness: a box mesh's cells along its shortest axis - a TetGen ball's estimated from its tets") {
  scene::SolidDesc d = beam_desc();
  d.mesh.max = Vec3(0.2, 1, 0.5);
  d.mesh.cells = Vec3i(3, 8, 5);
  const sim::Thickness box = sim::thickness(d, sim::make_solid(d, "scene.json"));
  CHECK(box.exact);
  CHECK(box.elements == 3);
  CHECK(box.metres == doctest::Approx(0.2));
  // A ball: its diameter, in about the tets' edge lengths.
  d.mesh.type = scene::MeshDesc::Type::sphere;
  d.mesh.center = Vec3(0, 0, 0);
  d.mesh.radius = 0.5;
  const solid::Body ball = sim::make_solid(d, "scene.json");
  const sim::Thickness t = sim::thickness(d, ball);
  Real edges = 0;
  int count = 0;
  for (const mesh::Tet& tet : ball.mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b, ++count) edges += (ball.mesh.rest.col(tet[a]) - ball.mesh.rest.col(tet[b])).norm();
  MESSAGE("ball: " << ball.num_tets() << " tets, mean edge " << edges / count << " m, estimated " << t.elements
                   << " elements through " << t.metres << " m");
  CHECK_FALSE(t.exact);
  CHECK(t.metres == doctest::Approx(1.0).epsilon(0.1));
  CHECK(t.elements == doctest::Approx(t.metres / (edges / count)).epsilon(1e-9));
  CHECK(t.elements < 6);
}
