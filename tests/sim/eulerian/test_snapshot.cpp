// The Eulerian simulator's part of a checkpoint (lib/sim/eulerian/snapshot.cpp):
// the world, the surfaces and the frame tally survive the round trip through
// a snapshot's bytes bit for bit and the next steps are identical; the file
// keeps format 5's SOLD and LIQD (no solids, no liquid); a checkpoint of the
// other simulator or of other solids does not fit.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "lib/checkpoint/format.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/eulerian/simulator.hpp"
#include "lib/sim/snapshot.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

// Two small balls in a smoke box, one plastic (a yield strain it passes in its
// first steps).
const char* SCENE = R"({
  "grid": { "resolution": [6, 8, 6], "cell_size": 0.1 },
  "time": { "fps": 24, "frames": 2 },
  "fluid": { "kind": "smoke", "density": 1.2,
             "smoke": { "vorticity_confinement": 0.2, "sources": [ { "min": [0.1, 0, 0.1], "max": [0.5, 0.1, 0.5] } ] } },
  "solids": [ { "name": "soft", "representation": "eulerian", "density": 1200, "youngs_modulus": 5e4,
                "plasticity": { "yield": 0.0005 },
                "mesh": { "type": "sphere", "center": [0.2, 0.5, 0.3], "radius": 0.1, "subdivisions": 1 } },
              { "name": "hard", "representation": "eulerian", "density": 1200, "youngs_modulus": 5e4,
                "mesh": { "type": "sphere", "center": [0.42, 0.4, 0.3], "radius": 0.1, "subdivisions": 1 } } ],
  "coupling": { "scheme": "eulerian" } })";

scene::Scene parse(const std::string& text) { return scene::parse_scene(text, "balls.json", "."); }

bool same_bits(const eulerian::Vector& a, const eulerian::Vector& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

bool same_bits(const Points& a, const Points& b) {
  return a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

// The 4-byte tags of a checkpoint's sections in order.
std::string tags(const std::string& bytes) {
  std::string result;
  for (std::size_t at = 32; at < bytes.size();) {
    result += bytes.substr(at, 4) + " ";
    std::uint64_t size;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    at += 16 + size;
  }
  return result;
}

}  // namespace

TEST_CASE("an Eulerian state survives the round trip bit for bit and the next steps are identical") {
  sim::EulerianSimulator a(parse(SCENE));
  sim::advance_to(a, 0.03);
  REQUIRE(a.tally.substeps > 0);
  REQUIRE(a.world.solids[0].plastic);
  const std::string bytes = checkpoint::encode(sim::to_snapshot(a, {}));
  CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD EULR ");

  sim::EulerianSimulator b(parse(SCENE));
  sim::RunProgress p;
  sim::restore_snapshot(checkpoint::decode(bytes, "mem"), "mem", b, p);
  CHECK(b.time == a.time);
  CHECK(b.frame == a.frame);
  CHECK(same_bits(b.world.velocity, a.world.velocity));
  CHECK(same_bits(b.world.pressure, a.world.pressure));
  REQUIRE(b.world.solids.size() == 2);
  for (std::size_t l = 0; l < 2; ++l) {
    CAPTURE(l);
    const eulerian::EulerianSolid &sa = a.world.solids[l], &sb = b.world.solids[l];
    CHECK(same_bits(sb.u, sa.u));
    CHECK(same_bits(sb.v, sa.v));
    CHECK(sb.valid == sa.valid);
    CHECK(same_bits(sb.pressure, sa.pressure));
    CHECK(same_bits(b.surfaces[l].vertices, a.surfaces[l].vertices));
  }
  const auto& fa = a.world.solids[0].plastic->samples;
  const auto& fb = b.world.solids[0].plastic->samples;
  REQUIRE(fa.size() == fb.size());
  bool flowed = false;
  for (std::size_t k = 0; k < fa.size(); ++k) {
    CHECK(std::memcmp(fa[k].data(), fb[k].data(), 9 * sizeof(Real)) == 0);
    flowed = flowed || !fa[k].isIdentity();
  }
  CHECK(flowed);
  CHECK(b.world.smoke->density.data() == a.world.smoke->density.data());
  CHECK(same_bits(b.world.smoke->velocity, a.world.smoke->velocity));
  const sim::EulerianTally &ta = a.tally, &tb = b.tally;
  CHECK(tb.frame == ta.frame);
  CHECK(tb.substeps == ta.substeps);
  CHECK(tb.velocity_iterations == ta.velocity_iterations);
  CHECK(tb.pressure_iterations == ta.pressure_iterations);
  CHECK(tb.correction_iterations == ta.correction_iterations);
  CHECK(tb.divergence == ta.divergence);
  CHECK(tb.unknowns == ta.unknowns);
  CHECK(tb.constraints == ta.constraints);
  CHECK(tb.contacts == ta.contacts);
  CHECK(checkpoint::encode(sim::to_snapshot(b, p)) == bytes);

  sim::advance_to(a, 0.06);
  sim::advance_to(b, 0.06);
  CHECK(same_bits(b.world.velocity, a.world.velocity));
  for (std::size_t l = 0; l < 2; ++l) CHECK(same_bits(b.surfaces[l].vertices, a.surfaces[l].vertices));
}

TEST_CASE("an Eulerian checkpoint does not fit the cut-cell simulator or other solids - nor the reverse") {
  sim::EulerianSimulator e(parse(SCENE));
  const checkpoint::Snapshot eulerian = sim::to_snapshot(e, {});
  sim::RunProgress p;
  sim::CutCellSimulator cutcell(parse(R"({ "grid": { "resolution": [6, 8, 6], "cell_size": 0.1 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.6, 0.2, 0.6] } ] } })"));
  CHECK(test::require_error<Error>([&] { sim::restore_snapshot(eulerian, "f", cutcell, p); }, {}) ==
        "f (section EULR): does not fit this scene: it holds an Eulerian world and the scene none");
  CHECK(test::require_error<Error>([&] { sim::restore_snapshot(sim::to_snapshot(cutcell, {}), "f", e, p); }, {}) ==
        "f (section EULR): does not fit this scene: it holds no Eulerian world and the scene has one");
  // One ball fewer.
  std::string one = SCENE;
  const std::size_t from = one.find(",\n              { \"name\": \"hard\"");
  one.erase(from, one.find(" ],\n  \"coupling\"") - from);
  sim::EulerianSimulator single(parse(one));
  REQUIRE(single.world.solids.size() == 1);
  CHECK(test::require_error<Error>([&] { sim::restore_snapshot(eulerian, "f", single, p); }, {}) ==
        "f (section EULR): does not fit this scene: 2 Eulerian solids in the checkpoint, 1 in the scene");
  try {
    sim::restore_snapshot(eulerian, "f", single, p);
  } catch (const Error& err) {
    CHECK(err.code() == ExitCode::data);
  }
}

// Members are listed in lib/sim/eulerian/snapshot.cpp and
// sim/eulerian/simulator.hpp as stored or derived (the world's in
// lib/checkpoint/eulerian_world.hpp). A new member changes the struct's size:
// decide whether it is state, write it in save and read it in restore (and
// the checkpoint format), then the sizes here. Sizes are those of x86-64 with
// libstdc++, where CI runs.
TEST_CASE("the checkpointed Eulerian simulator structs have the members snapshot.cpp lists") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK_MESSAGE(sizeof(sim::EulerianTally) == 112, "sim::EulerianTally changed: update lib/sim/eulerian/snapshot.cpp");
  CHECK_MESSAGE(sizeof(sim::EulerianSurface) == 72, "sim::EulerianSurface changed: update lib/sim/eulerian/snapshot.cpp");
  CHECK_MESSAGE(sizeof(sim::EulerianSimulator) == 1104,
                "sim::EulerianSimulator changed: update lib/sim/eulerian/snapshot.cpp");
#else
  MESSAGE("struct sizes are only recorded for x86-64 with libstdc++");
#endif
}
