// scenes/schema.json, scenes/README.md and SceneDesc's defaults describe the
// same format: these tests keep them from drifting apart.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/solid_mesh.hpp"
#include "tests/support.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace fsicut;

namespace {

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in, nullptr, true, true);
}

std::set<std::string> keys(const json& object) {
  std::set<std::string> k;
  for (const auto& item : object.items()) k.insert(item.key());
  return k;
}

// Checks that the schema object `props` lists exactly the keys of `resolved`
// (plus `optional` ones that have no default) and that every schema default
// equals the resolved value.
void check_object(const std::string& where, const json& props, const json& resolved,
                  const std::set<std::string>& optional = {}) {
  INFO(where);
  std::set<std::string> expected = keys(resolved);
  expected.insert(optional.begin(), optional.end());
  CHECK(keys(props) == expected);
  for (const auto& item : props.items())
    if (item.value().contains("default")) {
      INFO(where << "/" << item.key());
      REQUIRE(resolved.contains(item.key()));
      CHECK(item.value()["default"] == resolved[item.key()]);
    }
}

}  // namespace

TEST_CASE("a scene's $schema key is accepted and ignored - it must be a string") {
  const std::string body = R"("grid": { "resolution": [4, 4, 4], "cell_size": 0.25 } })";
  const scene::Scene s = scene::parse_scene(R"({ "$schema": "../schema.json", )" + body, "s.json", "/");
  CHECK(s.grid.cell_size == 0.25);
  CHECK(json::parse(scene::to_json(s)).count("$schema") == 0);
  try {
    scene::parse_scene(R"({ "$schema": 3, )" + body, "s.json", "/");
    FAIL("a numeric $schema was accepted");
  } catch (const SceneError& e) {
    CHECK(std::string(e.what()).find("s.json: /$schema") != std::string::npos);
  }
}

TEST_CASE("schema.json lists the keys and defaults the loader uses") {
  const json schema = read_json(test::source_dir() / "scenes/schema.json");
  const scene::Scene s = scene::parse_scene(R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 },
      "solids": [ { "name": "a", "mesh": { "type": "sphere", "center": [0.4,0.4,0.4], "radius": 0.1 } } ] })",
                                            "schema-test.json", "/");
  json resolved = json::parse(scene::to_json(s));
  json props = schema["properties"];
  props.erase("$schema");  // for editors, not a simulation key
  props.erase("probes");   // to_json writes it only for a scene with probes (checkpoint fingerprints)
  CHECK(keys(props) == keys(resolved));
  // grid/open, fluid/sources and fluid/drains are echoed only when a scene
  // has them (checkpoint fingerprints): no default in the schema, [] in the README.
  check_object("grid", props["grid"]["properties"], resolved["grid"], {"open"});
  // time/particle_cfl is echoed only when a scene sets it (checkpoint fingerprints).
  check_object("time", props["time"]["properties"], resolved["time"], {"particle_cfl"});
  // The eulerian scheme's keys are written only where they are used
  // (checkpoint fingerprints of the other scenes); the loader's default kind
  // is liquid.
  REQUIRE(!resolved["fluid"].contains("kind"));
  REQUIRE(s.fluid.kind == scene::Fluid::Kind::liquid);
  resolved["fluid"]["kind"] = "liquid";
  // fluid/viscosity is echoed only when above 0 (checkpoint fingerprints of the inviscid scenes).
  check_object("fluid", props["fluid"]["properties"], resolved["fluid"], {"smoke", "sources", "drains", "viscosity"});
  check_object("coupling", props["coupling"]["properties"], resolved["coupling"], {"eulerian"});
  // The resolved output folder is absolute; the schema's default is the relative one.
  resolved["output"]["directory"] = "out";
  check_object("output", props["output"]["properties"], resolved["output"], {"voxel_size"});
  CHECK(props["gravity"]["default"] == resolved["gravity"]);
  CHECK(props["strict"]["default"] == resolved["strict"]);
  CHECK(props["on_absurd"]["default"] == resolved["on_absurd"]);

  const json& defs = schema["$defs"];
  json solid = resolved["solids"][0];
  // to_json leaves out the default element, so that linear scenes' checkpoints
  // keep their fingerprint (scene/load.cpp); the loader's default is linear.
  REQUIRE(!solid.contains("element"));
  REQUIRE(s.solids[0].element == scene::SolidDesc::Element::linear);
  solid["element"] = "linear";
  // model and modes likewise: written only for a reduced solid.
  REQUIRE(!solid.contains("model"));
  REQUIRE(s.solids[0].model == scene::SolidDesc::Model::full);
  REQUIRE(s.solids[0].modes == 10);
  solid["model"] = "full";
  solid["modes"] = 10;
  // representation and incompressible likewise: written only for an Eulerian solid.
  REQUIRE(!solid.contains("representation"));
  REQUIRE(s.solids[0].representation == scene::SolidDesc::Representation::lagrangian);
  REQUIRE(s.solids[0].incompressible);
  solid["representation"] = "lagrangian";
  solid["incompressible"] = true;
  check_object("solid", defs["solid"]["properties"], solid, {"contact", "plasticity"});
  check_object("damping", defs["solid"]["properties"]["damping"]["properties"], solid["damping"]);
  check_object("transform", defs["transform"]["properties"], solid["mesh"]["transform"]);
  for (const char* key : {"subdivisions", "max_tet_volume", "quality"})
    CHECK(defs["mesh"]["properties"][key]["default"] == solid["mesh"][key]);

  // The eulerian scheme's objects, from a scene that uses them.
  const scene::Scene e = scene::parse_scene(R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 },
      "fluid": { "kind": "smoke", "smoke": { "sources": [ { "min": [0,0,0], "max": [0.2,0.2,0.2] } ] } },
      "coupling": { "scheme": "eulerian" },
      "solids": [ { "name": "a", "representation": "eulerian",
                    "mesh": { "type": "sphere", "center": [0.4,0.4,0.4], "radius": 0.1 } } ] })",
                                            "schema-test.json", "/");
  const json er = json::parse(scene::to_json(e));
  json smoke = er["fluid"]["smoke"];
  smoke["sources"] = json::array();  // the default; the source itself is checked below
  check_object("smoke", props["fluid"]["properties"]["smoke"]["properties"], smoke);
  check_object("smoke source", defs["smoke_source"]["properties"], er["fluid"]["smoke"]["sources"][0], {"velocity", "from", "until"});
  check_object("coupling/eulerian", props["coupling"]["properties"]["eulerian"]["properties"], er["coupling"]["eulerian"],
               {"contact_cfl"});
  check_object("contact", defs["solid"]["properties"]["contact"]["properties"], er["solids"][0]["contact"]);
  CHECK(defs["solid"]["properties"]["representation"]["default"] == "lagrangian");
  // plasticity: written only for a plastic solid, yield required.
  CHECK_FALSE(er["solids"][0].contains("plasticity"));
  const scene::Scene p = scene::parse_scene(R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 },
      "coupling": { "scheme": "eulerian" },
      "solids": [ { "name": "a", "representation": "eulerian", "plasticity": { "yield": 0.1 },
                    "mesh": { "type": "sphere", "center": [0.4,0.4,0.4], "radius": 0.1 } } ] })",
                                            "schema-test.json", "/");
  const json pr = json::parse(scene::to_json(p));
  check_object("plasticity", defs["solid"]["properties"]["plasticity"]["properties"], pr["solids"][0]["plasticity"]);
  CHECK(defs["solid"]["properties"]["plasticity"]["required"] == json::array({"yield"}));
}

TEST_CASE("scenes/README.md documents every key of the schema") {
  std::ifstream in(test::source_dir() / "scenes/README.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json schema = read_json(test::source_dir() / "scenes/schema.json");
  std::set<std::string> all;
  const std::function<void(const json&)> collect = [&](const json& j) {
    if (j.is_object()) {
      if (j.contains("properties"))
        for (const auto& item : j["properties"].items()) all.insert(item.key());
      for (const auto& item : j.items()) collect(item.value());
    } else if (j.is_array()) {
      for (const auto& item : j) collect(item);
    }
  };
  collect(schema);
  for (const std::string& key : all) {
    INFO(key);
    // Keys appear as `key` or as the last part of a path like `solids/*/key`.
    CHECK((doc.find("`" + key + "`") != std::string::npos || doc.find("/" + key + "`") != std::string::npos));
  }
}

TEST_CASE("every scene under scenes/ loads and its solids mesh") {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(test::source_dir() / "scenes")) {
    // schema.json and the sweep specs under scenes/sweeps/ are not scenes.
    if (entry.path().extension() != ".json" || entry.path().filename() == "schema.json" ||
        entry.path().parent_path().filename() == "sweeps")
      continue;
    INFO(entry.path().string());
    scene::Scene s;
    REQUIRE_NOTHROW(s = scene::load_scene(entry.path().string()));
    for (const scene::SolidDesc& d : s.solids) CHECK_NOTHROW(sim::build_solid_mesh(d.mesh, s.file));
    ++count;
  }
  MESSAGE(count << " scenes checked");
  CHECK(count >= 2);
}
