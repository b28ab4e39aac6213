// The checkpoint codec of the Eulerian world (lib/checkpoint/eulerian_world.hpp),
// its part of section EULR: the world survives the round trip bit for bit, a
// plastic solid's F_p too while an elastic world's bytes do not change, a
// world of other solids, smoke or grid does not fit, corrupt counts are
// refused naming the section. (The simulator's part of EULR and the whole
// section through a simulator: tests/sim/eulerian/test_snapshot.cpp.)
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "lib/checkpoint/eulerian_world.hpp"
#include "lib/checkpoint/snapshot.hpp"
#include "lib/checkpoint/values.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;

namespace {

const std::vector<std::string> NAMES = {"ball", "cube"};

grid::MacGrid small_grid() {
  grid::MacGrid g;
  g.resolution = {2, 3, 2};
  g.dx = 0.25;
  return g;
}

eulerian::Vector ramp(Index n, Real start) {
  eulerian::Vector v(n);
  for (Index i = 0; i < n; ++i) v[i] = start + 0.5 * static_cast<Real>(i);
  return v;
}

// A world as the scene builds it: two solids and smoke on small_grid(), at
// rest, the first solid plastic with `samples` samples (none: elastic).
eulerian::World blank(int samples) {
  const grid::MacGrid g = small_grid();
  eulerian::World w = eulerian::make_world(g);
  const Index nodes = eulerian::node_count(g);
  for (int l = 0; l < 2; ++l) {
    eulerian::EulerianSolid s;
    s.grid = g;
    s.u = s.v = eulerian::zero_field(g);
    s.valid.assign(static_cast<std::size_t>(nodes), 0);
    if (l == 0 && samples > 0) {
      s.plastic.emplace();
      s.plastic->samples.assign(static_cast<std::size_t>(samples), eulerian::Mat3::Identity());
    }
    w.solids.push_back(std::move(s));
  }
  w.smoke = eulerian::make_smoke(g, 1.2);
  return w;
}

// The same world some steps in: every stored value one of its own.
eulerian::World sample(int samples) {
  eulerian::World w = blank(samples);
  w.velocity = ramp(w.velocity.size(), 0.25) ;
  w.velocity[3] = 3e-300;
  w.pressure = ramp(5, -2);
  for (std::size_t l = 0; l < w.solids.size(); ++l) {
    eulerian::EulerianSolid& s = w.solids[l];
    s.u = ramp(s.u.size(), static_cast<Real>(l) + 0.125);
    s.v = ramp(s.v.size(), -static_cast<Real>(l));
    for (std::size_t n = 0; n < s.valid.size(); ++n) s.valid[n] = static_cast<char>((n + l) % 2);
    s.pressure = ramp(static_cast<Index>(l), 7);  // the second's warm start: 1 value
    if (s.plastic)
      for (std::size_t k = 0; k < s.plastic->samples.size(); ++k)
        s.plastic->samples[k] << 1 + 0.125 * k, -0.5, 1e-17, 0, 1, 0, 0, 0, 2;
  }
  for (Index n = 0; n < w.smoke->density.count(); ++n) w.smoke->density[n] = 0.75 * static_cast<Real>(n);
  w.smoke->velocity = ramp(w.smoke->velocity.size(), 1);
  return w;
}

bool same(const eulerian::Vector& a, const eulerian::Vector& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

bool same(const eulerian::World& a, const eulerian::World& b) {
  bool ok = same(a.velocity, b.velocity) && same(a.pressure, b.pressure) && a.solids.size() == b.solids.size() &&
            a.smoke.has_value() == b.smoke.has_value();
  for (std::size_t l = 0; ok && l < a.solids.size(); ++l) {
    const eulerian::EulerianSolid &x = a.solids[l], &y = b.solids[l];
    ok = same(x.u, y.u) && same(x.v, y.v) && x.valid == y.valid && same(x.pressure, y.pressure) &&
         x.plastic.has_value() == y.plastic.has_value();
    if (ok && x.plastic) {
      ok = x.plastic->samples.size() == y.plastic->samples.size();
      for (std::size_t k = 0; ok && k < x.plastic->samples.size(); ++k)
        ok = std::memcmp(x.plastic->samples[k].data(), y.plastic->samples[k].data(), 9 * sizeof(Real)) == 0;
    }
  }
  if (ok && a.smoke)
    ok = a.smoke->density.data() == b.smoke->density.data() && same(a.smoke->velocity, b.smoke->velocity);
  return ok;
}

// The world's part of EULR, something between (the simulator's part), then
// the plastic block.
std::string section(const eulerian::World& w, const std::string& between = "beside") {
  ByteWriter out;
  put(out, w);
  out.raw(between.data(), between.size());
  put_plastic(out, w);
  return out.bytes();
}

eulerian::World restored(const std::string& bytes, eulerian::World into, const std::string& between = "beside") {
  ByteReader r(bytes.data(), bytes.size(), "mem (section EULR)");
  get(r, into, NAMES);
  CHECK(std::string(r.take(between.size()), between.size()) == between);
  get_plastic(r, into, NAMES);
  CHECK(r.done());
  return into;
}

}  // namespace

TEST_CASE("EULR: the Eulerian world survives the round trip bit for bit") {
  const eulerian::World a = sample(0);
  const std::string bytes = section(a);
  const eulerian::World b = restored(bytes, blank(0));
  CHECK(same(b, a));
  CHECK(section(b) == bytes);
  CHECK_FALSE(same(blank(0), a));
  // The layout: doubles velocity first, then doubles pressure.
  ByteReader r(bytes.data(), bytes.size(), "mem");
  CHECK(same(get_vector(r, "velocity"), a.velocity));
  CHECK(same(get_vector(r, "pressure"), a.pressure));
  CHECK(r.u32() == 2);
}

TEST_CASE("EULR: a plastic solid's F_p survives the round trip - an elastic world's bytes do not change") {
  const std::string elastic = section(sample(0), "");
  const eulerian::World plastic = sample(3);
  const std::string bytes = section(plastic, "");
  // The elastic section is the plastic one cut before its trailing block:
  // u32 #solids, then per solid doubles F_p (9 per sample; none when elastic).
  REQUIRE(bytes.size() == elastic.size() + 4 + 8 + 27 * 8 + 8);
  CHECK(bytes.compare(0, elastic.size(), elastic) == 0);
  const eulerian::World back = restored(bytes, blank(3), "");
  CHECK(same(back, plastic));
  CHECK_FALSE(back.solids[1].plastic);
  CHECK(back.solids[0].plastic->samples[2](0, 0) == 1.25);
  CHECK(section(back, "") == bytes);
  // A plastic scene reading an elastic world's section: its F_p are missing.
  ByteReader r(elastic.data(), elastic.size(), "f (section EULR)");
  eulerian::World into = blank(3);
  get(r, into, NAMES);
  const std::string missing = test::require_error<Error>([&] { get_plastic(r, into, NAMES); }, {});
  CHECK(missing == "f (section EULR): does not fit this scene: solid \"ball\"'s plastic strain has 0 values in the "
                   "checkpoint, 27 in the scene");
  // Another sample count (another material grid).
  ByteReader s(bytes.data(), bytes.size(), "f (section EULR)");
  eulerian::World fewer = blank(2);
  get(s, fewer, NAMES);
  test::require_error<Error>([&] { get_plastic(s, fewer, NAMES); }, {"has 27 values in the checkpoint, 18 in the scene"});
}

TEST_CASE("EULR: a world of other solids, smoke or grid does not fit") {
  const std::string bytes = section(sample(0));
  const auto restore = [&](eulerian::World into) {
    ByteReader r(bytes.data(), bytes.size(), "f (section EULR)");
    get(r, into, NAMES);
  };
  eulerian::World one = blank(0);
  one.solids.pop_back();
  CHECK(test::require_error<Error>([&] { restore(one); }, {}) ==
        "f (section EULR): does not fit this scene: 2 Eulerian solids in the checkpoint, 1 in the scene");
  eulerian::World clear = blank(0);
  clear.smoke.reset();
  CHECK(test::require_error<Error>([&] { restore(clear); }, {}) ==
        "f (section EULR): does not fit this scene: the checkpoint has smoke, the scene none");
  grid::MacGrid finer = small_grid();
  finer.resolution = {2, 4, 2};
  eulerian::World other = blank(0);
  other.velocity = eulerian::zero_field(finer);
  CHECK(test::require_error<Error>([&] { restore(other); }, {}) ==
        "f (section EULR): does not fit this scene: velocity has " + std::to_string(sample(0).velocity.size()) +
            " values in the checkpoint, " + std::to_string(other.velocity.size()) + " in the scene");
  eulerian::World valid = blank(0);
  valid.solids[1].valid.push_back(1);
  CHECK(test::require_error<Error>([&] { restore(valid); }, {}) ==
        "f (section EULR): does not fit this scene: solid \"cube\"'s valid nodes do not fit the scene's grid");
  eulerian::World smoke = blank(0);
  smoke.smoke->density.resize(Vec3i(2, 2, 2));
  CHECK(test::require_error<Error>([&] { restore(smoke); }, {}) ==
        "f (section EULR): does not fit this scene: the smoke density does not fit the scene's grid");
  // The scene's smoke, the checkpoint's none.
  eulerian::World smokeless = sample(0);
  smokeless.smoke.reset();
  const std::string clear_bytes = section(smokeless);
  ByteReader r(clear_bytes.data(), clear_bytes.size(), "f (section EULR)");
  eulerian::World into = blank(0);
  test::require_error<Error>([&] { get(r, into, NAMES); }, {"the scene has smoke, the checkpoint none"});
}

TEST_CASE("EULR: a count past the data is a CorruptError naming the section, not an allocation") {
  ByteWriter w;
  w.u64(1ULL << 60);  // velocity: 2^60 values
  ByteReader r(w.bytes().data(), w.size(), "mem (section EULR)");
  eulerian::World into = blank(0);
  test::require_error<CorruptError>([&] { get(r, into, NAMES); },
                                    {"mem (section EULR): velocity: more values than the data holds"});
  // A plastic block that does not hold one record per solid.
  std::string bytes = section(sample(3), "");
  const std::string elastic = section(sample(0), "");
  const std::uint32_t three = 3;
  std::memcpy(&bytes[elastic.size()], &three, 4);
  ByteReader p(bytes.data(), bytes.size(), "mem (section EULR)");
  eulerian::World plastic = blank(3);
  get(p, plastic, NAMES);
  test::require_error<CorruptError>([&] { get_plastic(p, plastic, NAMES); },
                                    {"mem (section EULR): plastic strain: not one record per solid"});
}

// Members are listed in lib/checkpoint/eulerian_world.hpp as stored or
// derived. A new member changes the struct's size: decide whether it is
// state, update the codec's put and get (and the checkpoint format), then the
// sizes here. Sizes are those of x86-64 with libstdc++, where CI runs.
TEST_CASE("the checkpointed Eulerian structs have the members eulerian_world.hpp lists") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK_MESSAGE(sizeof(eulerian::World) == 224, "eulerian::World changed: update lib/checkpoint/eulerian_world.hpp");
  CHECK_MESSAGE(sizeof(eulerian::EulerianSolid) == 408,
                "eulerian::EulerianSolid changed: update lib/checkpoint/eulerian_world.hpp");
  CHECK_MESSAGE(sizeof(eulerian::Smoke) == 104, "eulerian::Smoke changed: update lib/checkpoint/eulerian_world.hpp");
  CHECK_MESSAGE(sizeof(eulerian::PlasticStrain) == 128,
                "eulerian::PlasticStrain changed: update lib/checkpoint/eulerian_world.hpp");
#else
  MESSAGE("struct sizes are only recorded for x86-64 with libstdc++");
#endif
}
