#include <doctest/doctest.h>

#include <cmath>

#include "lib/core/error.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/primitives.hpp"
#include "lib/sim/solid_mesh.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::mesh;
using fsicut::sim::build_solid_mesh;
using test::require_error;
using scene::MeshDesc;

namespace {

MeshDesc desc_of(MeshDesc::Type type) {
  MeshDesc d;
  d.type = type;
  d.pointer = "/solids/0/mesh";
  return d;
}

}  // namespace

TEST_CASE("build_solid_mesh dispatches on the mesh type and applies the transform") {
  MeshDesc box = desc_of(MeshDesc::Type::box);
  box.min = Vec3(0, 0, 0);
  box.max = Vec3(0.2, 1.4, 0.2);
  box.cells = Vec3i(4, 28, 4);
  const TetMesh beam = build_solid_mesh(box, "scene.json");
  CHECK(beam.rest.cols() == 725);
  CHECK(volume(beam) == doctest::Approx(0.2 * 1.4 * 0.2).epsilon(1e-12));

  MeshDesc sphere = desc_of(MeshDesc::Type::sphere);
  sphere.center = Vec3(1, 1, 1);
  sphere.radius = 0.25;
  sphere.subdivisions = 2;
  sphere.transform.translate = Vec3(0, 0.5, 0);
  sphere.transform.scale = 2;
  const TetMesh ball = build_solid_mesh(sphere, "scene.json");
  MESSAGE("sphere: " << ball.tets.size() << " tets, volume " << volume(ball));
  // Scaled by 2: the level-2 icosphere of radius 0.5.
  CHECK(volume(ball) == doctest::Approx(enclosed_volume(icosphere(Vec3::Zero(), 0.5, 2))).epsilon(1e-12));
  CHECK(ball.rest.rowwise().mean().isApprox(Vec3(2, 2.5, 2), 1e-9));

  MeshDesc shell = desc_of(MeshDesc::Type::shell);
  shell.outer_radius = 1.0;
  shell.inner_radius = 0.8;
  shell.subdivisions = 1;
  const TetMesh hollow = build_solid_mesh(shell, "scene.json");
  CHECK(volume(hollow) > 0);
  CHECK(volume(hollow) < 4.0 / 3.0 * M_PI * (1 - 0.8 * 0.8 * 0.8));

  MeshDesc obj = desc_of(MeshDesc::Type::obj);
  obj.path = (test::source_dir() / "meshes/cube.obj").string();
  obj.transform.rotate = Vec3(0, 0, 45);
  const TetMesh cube = build_solid_mesh(obj, "scene.json");
  CHECK(volume(cube) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(cube.rest.row(0).maxCoeff() == doctest::Approx(std::sqrt(0.5)));
}

TEST_CASE("build_solid_mesh names the scene file and JSON pointer of bad parameters") {
  MeshDesc shell = desc_of(MeshDesc::Type::shell);
  shell.outer_radius = 0.5;
  shell.inner_radius = 0.5;
  require_error<SceneError>([&] { build_solid_mesh(shell, "scene.json"); },
                            {"scene.json: /solids/0/mesh/inner_radius: ", "smaller than outer_radius"});

  MeshDesc box = desc_of(MeshDesc::Type::box);
  box.min = Vec3(0, 1, 0);
  box.max = Vec3(1, 1, 1);
  require_error<SceneError>([&] { build_solid_mesh(box, "scene.json"); }, {"scene.json: /solids/0/mesh/max: "});

  MeshDesc sphere = desc_of(MeshDesc::Type::sphere);
  sphere.radius = -1;
  require_error<SceneError>([&] { build_solid_mesh(sphere, "s.json"); }, {"s.json: /solids/0/mesh/radius: "});
  sphere.radius = 1;
  sphere.quality = 0.5;
  require_error<SceneError>([&] { build_solid_mesh(sphere, "s.json"); }, {"/solids/0/mesh/quality"});
  sphere.quality = 2;
  sphere.transform.scale = 0;
  require_error<SceneError>([&] { build_solid_mesh(sphere, "s.json"); }, {"/solids/0/mesh/transform/scale"});
}

TEST_CASE("build_solid_mesh reports bad and missing OBJ files with the file and the solid") {
  MeshDesc obj = desc_of(MeshDesc::Type::obj);
  obj.path = (test::source_dir() / "tests/data/meshes/open.obj").string();
  require_error<MeshError>([&] { build_solid_mesh(obj, "scene.json"); },
                           {obj.path + ": mesh is not closed", "scene.json: /solids/0/mesh"});
  obj.path = (test::source_dir() / "meshes/missing.obj").string();
  require_error<MissingInputError>([&] { build_solid_mesh(obj, "scene.json"); },
                                   {obj.path, "scene.json: /solids/0/mesh"});
}
