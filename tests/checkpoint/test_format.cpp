// The checkpoint file format (lib/checkpoint/format.hpp): a snapshot's
// sections survive the round trip byte for byte in the order format.hpp lists,
// the header, META and the clock are laid out as it says, and truncated,
// corrupted, foreign and malformed files are rejected with the reason. (What
// each section holds is its codec's: test_reports, test_solids, test_liquid,
// test_eulerian_world, and tests/sim/*/test_snapshot*.cpp for the sections the
// simulators write.)
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "lib/checkpoint/format.hpp"
#include "lib/checkpoint/liquid.hpp"
#include "lib/checkpoint/solids.hpp"
#include "lib/core/hash.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;
using fsicut::fnv1a;

namespace {

// CLCK's first fields, which inspect reads: time, frame, mid-frame flag; then
// whatever follows (the frame's statistics, which sim/snapshot.cpp writes).
std::string clock(double time, std::int32_t frame, bool mid_frame, const std::string& rest = "") {
  ByteWriter w;
  w.f64(time);
  w.i32(frame);
  w.u8(mid_frame ? 1 : 0);
  w.raw(rest.data(), rest.size());
  return w.bytes();
}

std::string text(const std::string& s) {
  ByteWriter w;
  w.str(s);
  return w.bytes();
}

// A section of each kind, added out of file order.
Snapshot full_snapshot() {
  Snapshot s;
  s.fsicut_version = "9.9.9-test";
  s.scene = R"({"grid":{"resolution":[2,3,4]}})";
  s.add(SECTION_EULERIAN, std::string("eulerian \0 bytes", 16));
  s.add(SECTION_PIECES, "pieces");
  s.add(SECTION_MEASURES, text("time,wall\n0.01,12.5\n"));
  s.add(SECTION_SURFACES, "surfaces");
  s.add(SECTION_REDUCED, "reduced");
  s.add(SECTION_LIQUID, std::string(1, '\0'));
  s.add(SECTION_SOLIDS, std::string(4, '\0'));
  s.add(SECTION_STATS, text("{\"frame\":0}\n{\"frame\":1}\n"));
  s.add(SECTION_CLOCK, clock(0.125, 3, true, "partial frame"));
  return s;
}

// Rewrites the header's hash after `bytes` were changed on purpose.
void rehash(std::string& bytes) {
  const std::uint64_t hash = fnv1a(bytes.data() + 32, bytes.size() - 32);
  std::memcpy(&bytes[24], &hash, 8);
}

// The 4-byte tags of the file's sections in order.
std::string tags(const std::string& bytes) {
  std::string result;
  std::size_t at = 32;
  while (at < bytes.size()) {
    result += bytes.substr(at, 4) + " ";
    std::uint64_t size;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    at += 16 + size;
  }
  return result;
}

}  // namespace

TEST_CASE("a snapshot survives encode and decode section for section - in the order format.hpp lists") {
  const Snapshot a = full_snapshot();
  const std::string bytes = encode(a);
  CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD REDU SURF MEAS PIEC EULR ");
  const Snapshot b = decode(bytes, "mem");
  CHECK(b.fsicut_version == a.fsicut_version);
  CHECK(b.scene == a.scene);
  REQUIRE(b.sections.size() == a.sections.size());
  for (const Section& section : a.sections) {
    CAPTURE(section.tag);
    REQUIRE(b.find(section.tag.c_str()));
    CHECK(*b.find(section.tag.c_str()) == section.bytes);
  }
  CHECK_FALSE(b.has(SECTION_META));
  CHECK(encode(b) == bytes);
  // A section the format does not list goes last and survives too.
  Snapshot c = a;
  c.add("XTRA", "later");
  c.add(SECTION_STATS, text("replaced"));
  const std::string more = encode(c);
  CHECK(tags(more) == "META CLCK STAT SOLD LIQD REDU SURF MEAS PIEC EULR XTRA ");
  const Snapshot d = decode(more, "mem");
  REQUIRE(d.find("XTRA"));
  CHECK(*d.find("XTRA") == "later");
  CHECK(*d.find(SECTION_STATS) == text("replaced"));
  CHECK_THROWS_AS(c.add("LONGER", ""), std::invalid_argument);
}

TEST_CASE("the header and META and CLCK are laid out as format.hpp says") {
  const Snapshot s = full_snapshot();
  const std::string bytes = encode(s);
  CHECK(bytes.substr(0, 8) == "FSICUTCK");
  std::uint32_t version, sections, reserved;
  std::uint64_t size, hash;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&sections, bytes.data() + 12, 4);
  std::memcpy(&size, bytes.data() + 16, 8);
  std::memcpy(&hash, bytes.data() + 24, 8);
  CHECK(version == FORMAT_VERSION);
  CHECK(FORMAT_VERSION == 5);
  CHECK(sections == 10);
  CHECK(size == bytes.size() - 32);
  CHECK(hash == fnv1a(bytes.data() + 32, bytes.size() - 32));
  // META: 4-byte tag, u32 0, u64 size; str version, u64 scene hash, str scene.
  CHECK(bytes.substr(32, 4) == "META");
  std::memcpy(&reserved, bytes.data() + 36, 4);
  CHECK(reserved == 0);
  std::uint64_t meta_size, length, scene_hash, scene_length;
  std::memcpy(&meta_size, bytes.data() + 40, 8);
  CHECK(meta_size == 8 + s.fsicut_version.size() + 8 + 8 + s.scene.size());
  std::memcpy(&length, bytes.data() + 48, 8);
  CHECK(bytes.substr(56, length) == s.fsicut_version);
  std::memcpy(&scene_hash, bytes.data() + 56 + length, 8);
  CHECK(scene_hash == fnv1a(s.scene));
  std::memcpy(&scene_length, bytes.data() + 64 + length, 8);
  CHECK(bytes.substr(72 + length, scene_length) == s.scene);
  // CLCK follows, its bytes as added.
  const std::size_t clock_at = 32 + 16 + meta_size;
  CHECK(bytes.substr(clock_at, 4) == "CLCK");
  std::uint64_t clock_size;
  std::memcpy(&clock_size, bytes.data() + clock_at + 8, 8);
  CHECK(bytes.substr(clock_at + 16, clock_size) == clock(0.125, 3, true, "partial frame"));
  const Info info = inspect(bytes, "mem");
  CHECK(info.fsicut_version == s.fsicut_version);
  CHECK(info.scene == s.scene);
  CHECK(info.scene_hash == fnv1a(s.scene));
  CHECK(info.time == 0.125);
  CHECK(info.frame == 3);
  CHECK(info.mid_frame);
}

TEST_CASE("truncated and corrupted and foreign files are rejected with the reason") {
  const std::string bytes = encode(full_snapshot());
  CHECK(inspect(bytes, "ok").frame == 3);

  test::require_error<CorruptError>([&] { inspect(bytes.substr(0, bytes.size() - 1), "f"); }, {"f: ", "truncated"});
  test::require_error<CorruptError>([&] { inspect(bytes.substr(0, 10), "f"); }, {"truncated"});
  test::require_error<CorruptError>([&] { inspect(bytes + "x", "f"); }, {"truncated or padded"});
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  test::require_error<CorruptError>([&] { inspect(flipped, "f"); }, {"checksum"});
  test::require_error<CorruptError>([&] { decode(flipped, "f"); }, {"checksum"});
  std::string foreign = bytes;
  foreign[0] = 'X';
  test::require_error<CorruptError>([&] { inspect(foreign, "f"); }, {"not an fsicut checkpoint"});
  // Another format version, older or newer, is refused naming both versions.
  for (const std::uint32_t other : {4u, 99u}) {
    std::string versioned = bytes;
    std::memcpy(&versioned[8], &other, 4);
    const std::string message = test::require_error<CorruptError>([&] { decode(versioned, "f"); }, {});
    CHECK(message == "f: checkpoint format version " + std::to_string(other) + ", this fsicut reads version 5");
  }
  // A section count past the data.
  std::string counted = bytes;
  counted[12] = 11;
  test::require_error<CorruptError>([&] { inspect(counted, "f"); }, {"f: unexpected end of data"});
}

TEST_CASE("a missing section is rejected naming it - the file and clock without it are not") {
  const std::string bytes = encode(full_snapshot());
  // Rename STAT: the file is intact but has no STAT section.
  std::string renamed = bytes;
  renamed.replace(renamed.find("STAT"), 4, "XXXX");
  rehash(renamed);
  CHECK_NOTHROW(inspect(renamed, "f"));
  const Snapshot s = decode(renamed, "f");
  CHECK_FALSE(s.has(SECTION_STATS));
  CHECK(s.has("XXXX"));
  test::require_error<CorruptError>([&] { s.read(SECTION_STATS, "f"); }, {"f: section STAT is missing"});
  // Without CLCK (or META) even inspect refuses it.
  std::string clockless = bytes;
  clockless.replace(clockless.find("CLCK"), 4, "XXXX");
  rehash(clockless);
  test::require_error<CorruptError>([&] { inspect(clockless, "f"); }, {"f: section CLCK is missing"});
}

TEST_CASE("malformed content with a valid hash is rejected naming the section") {
  // A solid whose node count claims more data than the section holds.
  solid::Body block;
  block.name = "block";
  block.x = block.v = Points::Zero(3, 2);
  Snapshot s = full_snapshot();
  add_section(s, SECTION_SOLIDS, [&](ByteWriter& w) { put(w, std::vector<solid::Body>{block}); });
  std::string bytes = encode(s);
  const std::size_t cols_at = bytes.find("block") + 5;
  const std::uint64_t huge = std::uint64_t(1) << 40;
  std::memcpy(&bytes[cols_at], &huge, 8);
  rehash(bytes);
  const Snapshot back = decode(bytes, "f");
  std::vector<solid::Body> bodies{block};
  ByteReader r = back.read(SECTION_SOLIDS, "f");
  test::require_error<CorruptError>([&] { get(r, bodies); },
                                    {"f (section SOLD): solid \"block\" positions: more columns than the data holds"});
  // A section read only part-way: its codec and the writer disagree.
  ByteReader stats = back.read(SECTION_STATS, "f");
  stats.str();
  CHECK_NOTHROW(expect_end(stats));
  ByteReader clock_reader = back.read(SECTION_CLOCK, "f");
  clock_reader.f64();
  test::require_error<CorruptError>([&] { expect_end(clock_reader); },
                                    {"f (section CLCK): 18 bytes after the end of its content"});
}
