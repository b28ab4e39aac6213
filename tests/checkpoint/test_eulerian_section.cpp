// Section EULR of a checkpoint (lib/checkpoint/eulerian_section.hpp).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "lib/checkpoint/eulerian_section.hpp"
#include "lib/checkpoint/format.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;

namespace {

EulerianRecord sample() {
  EulerianRecord e;
  e.velocity = {0.5, -1.25, 3e-300, 7};
  e.pressure = {-2, 4};
  e.solids.push_back({{1, 2, 3}, {4, 5, 6}, {1, 0, 1}, {0.25}});
  e.solids.push_back({{}, {-1}, {0}, {}});
  e.smoke = true;
  e.smoke_density = {0, 0.75};
  e.smoke_velocity = {1, 2, 3, 4, 5, 6};
  Points p(3, 2);
  p << 1, 2, 3, 4, 5, 6;
  e.surfaces = {p, Points(3, 0)};
  e.tally_frame = 7;
  e.tally_substeps = 3;
  e.velocity_iterations = 40;
  e.pressure_iterations = 1LL << 40;
  e.correction_iterations = 0;
  e.divergence = 0.0199;
  e.unknowns = 1234;
  e.constraints = 567;
  e.contacts = 89;
  return e;
}

bool same(const EulerianRecord& a, const EulerianRecord& b) {
  bool ok = a.velocity == b.velocity && a.pressure == b.pressure && a.solids.size() == b.solids.size() &&
            a.smoke == b.smoke && a.smoke_density == b.smoke_density && a.smoke_velocity == b.smoke_velocity &&
            a.surfaces.size() == b.surfaces.size() && a.tally_frame == b.tally_frame &&
            a.tally_substeps == b.tally_substeps && a.velocity_iterations == b.velocity_iterations &&
            a.pressure_iterations == b.pressure_iterations && a.correction_iterations == b.correction_iterations &&
            a.divergence == b.divergence && a.unknowns == b.unknowns && a.constraints == b.constraints &&
         a.contacts == b.contacts;
  for (std::size_t l = 0; ok && l < a.solids.size(); ++l)
    ok = a.solids[l].u == b.solids[l].u && a.solids[l].v == b.solids[l].v && a.solids[l].valid == b.solids[l].valid &&
         a.solids[l].pressure == b.solids[l].pressure && a.solids[l].plastic == b.solids[l].plastic;
  for (std::size_t l = 0; ok && l < a.surfaces.size(); ++l) ok = a.surfaces[l] == b.surfaces[l];
  return ok;
}

std::string section_bytes(const EulerianRecord& e) {
  ByteWriter w;
  put_eulerian(w, e);
  return w.bytes();
}

}  // namespace

TEST_CASE("EULR: the Eulerian world survives encode and decode bit for bit - only scenes with it carry it") {
  Snapshot s;
  s.scene = "{}";
  const std::string plain = encode(s);
  CHECK(plain.find(SECTION_EULERIAN) == std::string::npos);
  CHECK_FALSE(decode(plain, "mem").eulerian);
  s.eulerian = sample();
  const std::string bytes = encode(s);
  CHECK(bytes.find(SECTION_EULERIAN) != std::string::npos);
  const Snapshot back = decode(bytes, "mem");
  REQUIRE(back.eulerian);
  CHECK(same(*back.eulerian, sample()));
  CHECK(encode(back) == bytes);
}

TEST_CASE("EULR: a plastic solid's F_p survives encode and decode - an elastic world's bytes do not change") {
  const std::string elastic = section_bytes(sample());
  EulerianRecord plastic = sample();
  plastic.solids[1].plastic = {0.125, -0.5, 1e-17, 0, 0, 0, 0, 0, 2};
  const std::string bytes = section_bytes(plastic);
  // The elastic section is the plastic one cut before its trailing block.
  REQUIRE(bytes.size() > elastic.size());
  CHECK(bytes.compare(0, elastic.size(), elastic) == 0);
  ByteReader r(bytes.data(), bytes.size(), "mem (section EULR)");
  const EulerianRecord back = get_eulerian(r);
  CHECK(same(back, plastic));
  CHECK(back.solids[0].plastic.empty());
  ByteReader e(elastic.data(), elastic.size(), "mem (section EULR)");
  CHECK(same(get_eulerian(e), sample()));
  Snapshot s;
  s.scene = "{}";
  s.eulerian = plastic;
  const Snapshot decoded = decode(encode(s), "mem");
  REQUIRE(decoded.eulerian);
  CHECK(same(*decoded.eulerian, plastic));
}

TEST_CASE("EULR: a count past the data is a CorruptError naming the section, not an allocation") {
  ByteWriter w;
  w.u64(1ULL << 60);  // velocity: 2^60 values
  ByteReader r(w.bytes().data(), w.size(), "mem (section EULR)");
  try {
    get_eulerian(r);
    FAIL("a corrupt count was accepted");
  } catch (const CorruptError& e) {
    CHECK(std::string(e.what()).find("mem (section EULR): velocity: more values than the data holds") !=
          std::string::npos);
  }
}
