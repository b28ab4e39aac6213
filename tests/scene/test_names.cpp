#include <doctest/doctest.h>

#include <set>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "lib/scene/names.hpp"

using namespace fsicut;
using namespace fsicut::scene;

namespace {

// Every name is unique, maps back to its value and is what name_of says.
template <class Enum>
void check_table(std::size_t expected_size) {
  const NameTable<Enum>& table = names<Enum>();
  CHECK(table.size() == expected_size);
  std::set<std::string> seen;
  for (const auto& [name, value] : table) {
    CHECK(seen.insert(name).second);
    CHECK(std::string(name_of(value)) == name);
  }
}

}  // namespace

TEST_CASE("scene names: one table per enumeration, each name unique and its value's") {
  check_table<Shape::Type>(3);
  check_table<MeshDesc::Type>(4);
  check_table<SolidDesc::Element>(2);
  check_table<SolidDesc::Model>(2);
  check_table<Coupling::Scheme>(7);
  check_table<Fluid::Kind>(2);
  check_table<SolidDesc::Representation>(2);
  check_table<EulerianCoupling::Solver>(2);
  check_table<EulerianCoupling::Integration>(3);
  check_table<Coupling::Preconditioner>(3);
  check_table<Partitioned::Impulses>(2);
  check_table<Output::UpAxis>(2);
  CHECK(std::string(to_string(Coupling::Scheme::damping_only)) == "damping_only");
  CHECK(std::string(to_string(Coupling::Preconditioner::mic)) == "mic");
}

TEST_CASE("scene names: what the loader reads is what to_json writes") {
  for (const auto& [name, scheme] : names<Coupling::Scheme>()) {
    const Scene s = parse_scene(R"({ "grid": { "resolution": [4, 4, 4], "cell_size": 0.25 },
                                     "coupling": { "scheme": ")" + name + R"(" } })",
                                "test.json", "/scenes");
    CHECK(s.coupling.scheme == scheme);
    CHECK(to_json(s).find("\"scheme\": \"" + name + "\"") != std::string::npos);
  }
  // The loader lists the names in the table's order when one is wrong.
  try {
    parse_scene(R"({ "grid": { "resolution": [4, 4, 4], "cell_size": 0.25 }, "output": { "up_axis": "x" } })",
                "test.json", "/scenes");
    FAIL("an unknown up_axis was accepted");
  } catch (const SceneError& e) {
    CHECK(std::string(e.what()).find("unknown up_axis \"x\"; expected one of: y z") != std::string::npos);
  }
}
