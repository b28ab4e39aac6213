// The scene keys of the eulerian scheme (lib/scene/read_eulerian.hpp): what
// they read into, and every refusal with its exit code and JSON pointer.
#include <doctest/doctest.h>

#include <string>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "tests/scene/fixtures.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::scene;

namespace {

const std::string GRID = R"("grid": { "resolution": [8, 8, 8], "cell_size": 0.125 })";
const std::string BALL = R"("name": "ball", "mesh": { "type": "sphere", "center": [0.5, 0.5, 0.5], "radius": 0.2 })";
const std::string SCHEME = R"("coupling": { "scheme": "eulerian" })";

Scene parse(const std::string& body) { return parse_scene("{ " + body + " }", "e.json", "/scenes"); }

// The message of the SceneError (exit 65) parsing `body` throws ("" if none).
std::string error_of(const std::string& body) { return test::scene_error("{ " + body + " }", {}, "e.json"); }

using test::contains;

std::string eulerian_solid(const std::string& extra = "") {
  return R"("solids": [ { )" + BALL + R"(, "representation": "eulerian")" + extra + " } ]";
}

}  // namespace

TEST_CASE("eulerian scene keys: a smoke box with an Eulerian ball reads every key") {
  const Scene s = parse(GRID + R"(, "fluid": { "kind": "smoke", "density": 1.2,
      "smoke": { "buoyancy": 2, "vorticity_confinement": 0.3,
                 "sources": [ { "min": [0.1, 0, 0.1], "max": [0.3, 0.2, 0.3], "density": 0.5, "velocity": [0, 1, 0] },
                              { "min": [0.5, 0, 0.5], "max": [0.7, 0.2, 0.7] } ] } }, )" +
                        eulerian_solid(R"(, "incompressible": true, "contact": { "stiffness": 0, "friction": 0.4 })") +
                        R"(, "coupling": { "scheme": "eulerian", "eulerian": { "pressure_tolerance": 0.01,
                           "velocity_tolerance": 1e-4, "solver": "pcr", "integration": "explicit" } })");
  CHECK(s.fluid.kind == Fluid::Kind::smoke);
  CHECK(s.fluid.density == 1.2);
  CHECK(s.fluid.smoke.buoyancy == 2);
  CHECK(s.fluid.smoke.vorticity_confinement == 0.3);
  REQUIRE(s.fluid.smoke.sources.size() == 2);
  CHECK(s.fluid.smoke.sources[0].inflow);
  CHECK(s.fluid.smoke.sources[0].velocity == Vec3(0, 1, 0));
  CHECK(s.fluid.smoke.sources[0].density == 0.5);
  CHECK_FALSE(s.fluid.smoke.sources[1].inflow);
  CHECK(s.fluid.smoke.sources[1].density == 1);
  REQUIRE(s.solids.size() == 1);
  CHECK(s.solids[0].representation == SolidDesc::Representation::eulerian);
  CHECK(s.solids[0].contact.friction == 0.4);
  CHECK(s.coupling.scheme == Coupling::Scheme::eulerian);
  CHECK(s.coupling.eulerian.pressure_tolerance == 0.01);
  CHECK(s.coupling.eulerian.velocity_tolerance == 1e-4);
  CHECK(s.coupling.eulerian.integration == EulerianCoupling::Integration::explicit_euler);
  // to_json writes them all back, and reading that gives the same scene.
  const Scene again = parse_scene(to_json(s), "e.json", "/scenes");
  CHECK(to_json(again) == to_json(s));
  CHECK(contains(to_json(s), "\"integration\": \"explicit\""));
}

TEST_CASE("eulerian scene keys: a smoke source's from and until - until not after from exits 65 naming the pointer") {
  const std::string head = GRID + R"(, "fluid": { "kind": "smoke", "density": 1.2, "smoke": { "sources": [ )";
  const std::string tail = R"( ] } }, )" + eulerian_solid() + R"(, "coupling": { "scheme": "eulerian" })";
  const Scene s = parse(head + R"({ "min": [0.1, 0, 0.1], "max": [0.3, 0.2, 0.3], "from": 0.5, "until": 0.75 })" + tail);
  CHECK(s.fluid.smoke.sources[0].from == 0.5);
  CHECK(s.fluid.smoke.sources[0].until == 0.75);
  CHECK(contains(to_json(s), "\"until\": 0.75"));
  CHECK(to_json(parse_scene(to_json(s), "e.json", "/scenes")) == to_json(s));
  const Scene forever = parse(head + R"({ "min": [0.1, 0, 0.1], "max": [0.3, 0.2, 0.3] })" + tail);
  CHECK(std::isinf(forever.fluid.smoke.sources[0].until));
  CHECK_FALSE(contains(to_json(forever), "\"until\""));
  CHECK_FALSE(contains(to_json(forever), "\"from\""));
  const std::string err =
      error_of(head + R"({ "min": [0.1, 0, 0.1], "max": [0.3, 0.2, 0.3], "from": 0.5, "until": 0.5 })" + tail);
  CHECK(contains(err, "/fluid/smoke/sources/0/until: must be later than from (0.5 s), got 0.5"));
}

TEST_CASE("eulerian scene keys: integration newmark is read and written back, a bogus one exits 65 naming the pointer") {
  const Scene s = parse(GRID + ", " + eulerian_solid() +
                        R"(, "coupling": { "scheme": "eulerian", "eulerian": { "integration": "newmark" } })");
  CHECK(s.coupling.eulerian.integration == EulerianCoupling::Integration::newmark);
  CHECK(contains(to_json(s), "\"integration\": \"newmark\""));
  CHECK(to_json(parse_scene(to_json(s), "e.json", "/scenes")) == to_json(s));
  const std::string message =
      error_of(GRID + ", " + eulerian_solid() +
               R"(, "coupling": { "scheme": "eulerian", "eulerian": { "integration": "bogus" } })");
  CHECK(contains(message, "/coupling/eulerian/integration"));
  CHECK(contains(message, "newmark"));
}

TEST_CASE("eulerian scene keys: the defaults are the paper's, and other scenes do not see them") {
  const Scene s = parse(GRID + ", " + eulerian_solid() + ", " + SCHEME);
  CHECK(s.fluid.kind == Fluid::Kind::liquid);
  CHECK(s.coupling.eulerian.pressure_tolerance == 0.02);
  CHECK(s.coupling.eulerian.velocity_tolerance == 1e-3);
  CHECK(s.coupling.eulerian.solver == EulerianCoupling::Solver::pcr);
  CHECK(s.coupling.eulerian.integration == EulerianCoupling::Integration::semi_implicit);
  CHECK(s.solids[0].incompressible);
  CHECK(s.solids[0].contact.stiffness == 0);
  // A scene without the scheme resolves to the JSON it did before the keys existed.
  const std::string plain = to_json(parse(GRID));
  for (const char* key : {"\"kind\"", "\"smoke\"", "\"representation\"", "\"eulerian\"", "\"incompressible\""})
    CHECK_FALSE(contains(plain, key));
}

TEST_CASE("eulerian scene keys: plasticity reads yield and flow, and only plastic solids write it back") {
  const Scene s = parse(GRID + ", " + eulerian_solid(R"(, "plasticity": { "yield": 0.05 })") + ", " + SCHEME);
  REQUIRE(s.solids[0].plasticity);
  CHECK(s.solids[0].plasticity->yield == 0.05);
  CHECK(s.solids[0].plasticity->flow == 1);
  const Scene t =
      parse(GRID + ", " + eulerian_solid(R"(, "plasticity": { "yield": 0, "flow": 0.25 })") + ", " + SCHEME);
  REQUIRE(t.solids[0].plasticity);
  CHECK(t.solids[0].plasticity->yield == 0);
  CHECK(t.solids[0].plasticity->flow == 0.25);
  const Scene again = parse_scene(to_json(t), "e.json", "/scenes");
  REQUIRE(again.solids[0].plasticity);
  CHECK(again.solids[0].plasticity->flow == 0.25);
  CHECK(to_json(again) == to_json(t));
  // An elastic solid resolves to the JSON it did before the key existed.
  const Scene elastic = parse(GRID + ", " + eulerian_solid() + ", " + SCHEME);
  CHECK_FALSE(elastic.solids[0].plasticity);
  CHECK_FALSE(contains(to_json(elastic), "\"plasticity\""));
}

TEST_CASE("eulerian scene keys: each refusal exits 65 naming its pointer") {
  struct Case {
    std::string body, pointer, words;
  };
  const std::string smoke = R"("fluid": { "kind": "smoke" })";
  const std::string region = R"("regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.5, 0.5] } ])";
  const Case cases[] = {
      {eulerian_solid(R"(, "plasticity": { "yield": -1 })") + ", " + SCHEME, "/solids/0/plasticity/yield",
       "must be >= 0"},
      {eulerian_solid(R"(, "plasticity": { "yield": "low" })") + ", " + SCHEME, "/solids/0/plasticity/yield",
       "expected a number"},
      {eulerian_solid(R"(, "plasticity": { "yield": 0.1, "flow": 0 })") + ", " + SCHEME, "/solids/0/plasticity/flow",
       "must be > 0 and at most 1"},
      {eulerian_solid(R"(, "plasticity": { "yield": 0.1, "flow": 1.5 })") + ", " + SCHEME,
       "/solids/0/plasticity/flow", "must be > 0 and at most 1"},
      {eulerian_solid(R"(, "plasticity": { "yield": 0.1, "flw": 1 })") + ", " + SCHEME, "/solids/0/plasticity/flw",
       "did you mean \"flow\""},
      {eulerian_solid(R"(, "plasticity": { "flow": 1 })") + ", " + SCHEME, "/solids/0/plasticity",
       "missing required key \"yield\""},
      {eulerian_solid(R"(, "plasticity": 0.1)") + ", " + SCHEME, "/solids/0/plasticity", "expected an object"},
      {R"("solids": [ { )" + BALL + R"(, "plasticity": { "yield": 0.1 } } ])", "/solids/0/plasticity", "lagrangian"},
      {eulerian_solid(R"(, "element": "quadratic")") + ", " + SCHEME, "/solids/0/element", "makes no sense"},
      {eulerian_solid(R"(, "model": "reduced")") + ", " + SCHEME, "/solids/0/model", "makes no sense"},
      {R"("solids": [ { "name": "b", "representation": "eulerian", "mesh": { "type": "sphere", "center": [0.5, 0.5, 0.5],
          "radius": 0.2, "max_tet_volume": 1e-4 } } ], )" + SCHEME, "/solids/0/mesh/max_tet_volume", "makes no sense"},
      {R"("solids": [ { )" + BALL + R"(, "incompressible": false } ])", "/solids/0/incompressible", "lagrangian"},
      {R"("solids": [ { )" + BALL + R"(, "contact": { "stiffness": 1 } } ])", "/solids/0/contact", "lagrangian"},
      {eulerian_solid(), "/solids/0/representation", "needs"},
      {R"("solids": [ { )" + BALL + " } ], " + SCHEME, "/solids/0/representation", "is lagrangian"},
      {R"("fluid": { "kind": "smoke", )" + region + " }, " + SCHEME, "/fluid/regions", "smoke"},
      {R"("fluid": { )" + region + " }, " + SCHEME, "/fluid/regions", "no liquid"},
      {smoke, "/fluid/kind", "needs"},
      {R"("fluid": { "smoke": { "buoyancy": 1 } })", "/fluid/smoke", "applies to"},
      {R"("coupling": { "eulerian": { "solver": "pcr" } })", "/coupling/eulerian", "applies to"},
      {R"("coupling": { "scheme": "eulerian", "eulerian": { "solver": "kkt" } })", "/coupling/eulerian/solver",
       "expected one of"},
      {R"("coupling": { "scheme": "eulerian", "eulerian": { "integration": "implicit" } })",
       "/coupling/eulerian/integration", "expected one of"},
      {R"("coupling": { "scheme": "eulerian", "eulerian": { "pressure_tolernce": 0.1 } })",
       "/coupling/eulerian/pressure_tolernce", "did you mean"},
      {eulerian_solid(R"(, "contact": { "stiffness": -1 })") + ", " + SCHEME, "/solids/0/contact/stiffness",
       "N/m"},
      {smoke + ", " + eulerian_solid(R"(, "incompressible": false)") + ", " + SCHEME, "/solids/0/incompressible",
       "not implemented"},
      {R"("obstacles": [ { "type": "sphere", "center": [0.5, 0.5, 0.5], "radius": 0.1 } ], )" + SCHEME, "/obstacles",
       "not implemented"},
      {R"("fluid": { "kind": "smoke", "smoke": { "sources": [ { "min": [2, 2, 2], "max": [3, 3, 3] } ] } }, )" + SCHEME,
       "/fluid/smoke/sources/0", "outside the grid"},
      {smoke + R"(, "solids": [ { "name": "smoke", "representation": "eulerian", "mesh": { "type": "sphere",
          "center": [0.5, 0.5, 0.5], "radius": 0.2 } } ], )" + SCHEME, "/solids/0/name", "reserved"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    const std::string what = error_of(GRID + ", " + c.body);
    CHECK(contains(what, "e.json: " + c.pointer + ":"));
    CHECK(contains(what, c.words));
  }
}

TEST_CASE("eulerian scene keys: contact_cfl is read and written back only when set - not positive exits 65 naming the pointer") {
  const Scene s = parse(GRID + ", " + eulerian_solid() +
                        R"(, "coupling": { "scheme": "eulerian", "eulerian": { "contact_cfl": 0.6 } })");
  CHECK(s.coupling.eulerian.contact_cfl == 0.6);
  CHECK(contains(to_json(s), "\"contact_cfl\": 0.6"));
  CHECK(to_json(parse_scene(to_json(s), "e.json", "/scenes")) == to_json(s));
  const Scene plain = parse(GRID + ", " + eulerian_solid() + ", " + SCHEME);
  CHECK(plain.coupling.eulerian.contact_cfl == 0);
  CHECK_FALSE(contains(to_json(plain), "contact_cfl"));
  const std::string message = error_of(GRID + ", " + eulerian_solid() +
                                       R"(, "coupling": { "scheme": "eulerian", "eulerian": { "contact_cfl": 0 } })");
  CHECK(contains(message, "/coupling/eulerian/contact_cfl"));
}
