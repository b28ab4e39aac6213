// The checkpoint format (lib/checkpoint/format.hpp): a snapshot survives the
// round trip member for member, optional sections appear only when used, and
// truncated, corrupted, foreign and malformed files are rejected with the
// reason.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "lib/checkpoint/format.hpp"
#include "lib/core/hash.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;
using fsicut::fnv1a;

namespace {

template <class T>
Array3Data<T> ramp(const Vec3i& size, T start) {
  Array3Data<T> a;
  a.size = size;
  for (int n = 0; n < size.prod(); ++n) a.values.push_back(static_cast<T>(start + n));
  return a;
}

Points points(Index n, Real start) {
  Points p(3, n);
  for (Index i = 0; i < p.size(); ++i) p.data()[i] = start + 0.5 * static_cast<Real>(i);
  return p;
}

// Every member set to a value of its own.
Snapshot full_snapshot() {
  Snapshot s;
  s.fsicut_version = "9.9.9-test";
  s.scene = R"({"grid":{"resolution":[2,3,4]}})";
  s.time = 0.125;
  s.frame = 3;
  s.mid_frame = true;
  s.partial.frame = 4;
  s.partial.time = 0.1;
  s.partial.substeps = 3;
  s.partial.cfl_exceeded = 1;
  s.partial.solves = 3;
  s.partial.solver = {true, false, 17, 3.5e-11, 1e-13, 1234, "no failure"};
  s.partial.seconds = {{"advection", 0.25}, {"projection", 1.5}};
  s.partial.partitioned = PartitionedRecord{true, 7, 2.5e-4, 0.5, 0.125, 0.0625};
  s.stats = "{\"frame\":0}\n{\"frame\":1}\n";
  s.solids.push_back({"block", points(5, 1), points(5, -1)});
  s.solids.push_back({"plank", points(2, 7), points(2, 8)});
  ReducedRecord r;
  r.name = "plank";
  r.R = Eigen::AngleAxisd(0.3, Vec3(0, 0, 1)).toRotationMatrix();
  r.T = Vec3(1, 2, 3);
  r.v = Vec3(-1, 0, 0.5);
  r.omega = Vec3(0, 0.25, 0);
  r.q = {0.1, 0.2, 0.3};
  r.qdot = {-0.1, -0.2, -0.3};
  s.reduced.push_back(r);
  s.surfaces = {points(5, 1.25), points(2, 7.25)};
  LiquidRecord l;
  l.particle_radius = 0.01;
  l.particle_volume = 1e-6;
  l.particles = points(11, 0.5);
  for (int a = 0; a < 3; ++a) {
    l.velocity[a] = ramp<Real>(Vec3i(2, 3, 4) + Vec3i::Unit(a), 0.5 * a);
    l.fractions[a] = ramp<Real>(Vec3i(2, 3, 4) + Vec3i::Unit(a), 0.25);
    l.valid[a] = ramp<char>(Vec3i(2, 3, 4) + Vec3i::Unit(a), 0);
  }
  l.pressure = ramp<Real>(Vec3i(2, 3, 4), 100);
  l.liquid_phi = ramp<Real>(Vec3i(2, 3, 4), -3);
  l.static_phi = Array3Data<Real>{};  // not computed yet
  l.solid_phi = ramp<Real>(Vec3i(3, 4, 5), 2);
  s.liquid = l;
  return s;
}

bool same(const Points& a, const Points& b) {
  return a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

template <class T>
bool same(const Array3Data<T>& a, const Array3Data<T>& b) {
  return a.size == b.size && a.values == b.values;
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

TEST_CASE("a snapshot survives encode and decode member for member") {
  const Snapshot a = full_snapshot();
  const std::string bytes = encode(a);
  const Snapshot b = decode(bytes, "mem");
  CHECK(b.fsicut_version == a.fsicut_version);
  CHECK(b.scene == a.scene);
  CHECK(b.time == a.time);
  CHECK(b.frame == a.frame);
  CHECK(b.mid_frame);
  CHECK(b.partial.frame == 4);
  CHECK(b.partial.time == 0.1);
  CHECK(b.partial.substeps == 3);
  CHECK(b.partial.cfl_exceeded == 1);
  CHECK(b.partial.solves == 3);
  CHECK(b.partial.solver.converged);
  CHECK_FALSE(b.partial.solver.met_tolerance);
  CHECK(b.partial.solver.iterations == 17);
  CHECK(b.partial.solver.relative_residual == 3.5e-11);
  CHECK(b.partial.solver.round_off_floor == 1e-13);
  CHECK(b.partial.solver.unknowns == 1234);
  CHECK(b.partial.solver.failure == "no failure");
  CHECK(b.partial.seconds == a.partial.seconds);
  REQUIRE(b.partial.partitioned);
  CHECK(b.partial.partitioned->converged);
  CHECK(b.partial.partitioned->iterations == 7);
  CHECK(b.partial.partitioned->interface_residual == 2.5e-4);
  CHECK(b.partial.partitioned->fluid_seconds == 0.5);
  CHECK(b.partial.partitioned->solid_seconds == 0.125);
  CHECK(b.partial.partitioned->interface_seconds == 0.0625);
  CHECK(b.stats == a.stats);
  REQUIRE(b.solids.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(b.solids[i].name == a.solids[i].name);
    CHECK(same(b.solids[i].x, a.solids[i].x));
    CHECK(same(b.solids[i].v, a.solids[i].v));
    CHECK(same(b.surfaces[i], a.surfaces[i]));
  }
  REQUIRE(b.reduced.size() == 1);
  CHECK(b.reduced[0].name == "plank");
  CHECK(b.reduced[0].R == a.reduced[0].R);
  CHECK(b.reduced[0].T == a.reduced[0].T);
  CHECK(b.reduced[0].v == a.reduced[0].v);
  CHECK(b.reduced[0].omega == a.reduced[0].omega);
  CHECK(b.reduced[0].q == a.reduced[0].q);
  CHECK(b.reduced[0].qdot == a.reduced[0].qdot);
  REQUIRE(b.liquid);
  const LiquidRecord &la = *a.liquid, &lb = *b.liquid;
  CHECK(lb.particle_radius == la.particle_radius);
  CHECK(lb.particle_volume == la.particle_volume);
  CHECK(same(lb.particles, la.particles));
  for (int d = 0; d < 3; ++d) {
    CHECK(same(lb.velocity[d], la.velocity[d]));
    CHECK(same(lb.fractions[d], la.fractions[d]));
    CHECK(same(lb.valid[d], la.valid[d]));
  }
  CHECK(same(lb.pressure, la.pressure));
  CHECK(same(lb.liquid_phi, la.liquid_phi));
  CHECK(same(lb.static_phi, la.static_phi));
  CHECK(same(lb.solid_phi, la.solid_phi));
  CHECK(encode(b) == bytes);
  CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD REDU SURF ");
}

TEST_CASE("the header and META and CLCK are laid out as format.hpp says") {
  const Snapshot s = full_snapshot();
  const std::string bytes = encode(s);
  CHECK(bytes.substr(0, 8) == "FSICUTCK");
  std::uint32_t version, sections;
  std::uint64_t size, hash;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&sections, bytes.data() + 12, 4);
  std::memcpy(&size, bytes.data() + 16, 8);
  std::memcpy(&hash, bytes.data() + 24, 8);
  CHECK(version == FORMAT_VERSION);
  CHECK(sections == 7);
  CHECK(size == bytes.size() - 32);
  // META: its version string is the section's first field.
  CHECK(bytes.substr(32, 4) == "META");
  std::uint64_t length;
  std::memcpy(&length, bytes.data() + 48, 8);
  CHECK(bytes.substr(56, length) == s.fsicut_version);
  const Info info = inspect(bytes, "mem");
  CHECK(info.fsicut_version == s.fsicut_version);
  CHECK(info.scene == s.scene);
  CHECK(info.time == s.time);
  CHECK(info.frame == s.frame);
  CHECK(info.mid_frame);
}

TEST_CASE("REDU and SURF are written only when there are reduced solids or surfaces") {
  Snapshot s = full_snapshot();
  s.reduced.clear();
  s.surfaces.clear();
  s.liquid.reset();
  s.mid_frame = false;
  s.partial = {};
  const std::string bytes = encode(s);
  CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD ");
  const Snapshot b = decode(bytes, "mem");
  CHECK(b.reduced.empty());
  CHECK(b.surfaces.empty());
  CHECK_FALSE(b.liquid);
  CHECK_FALSE(b.partial.partitioned);
  CHECK(encode(b) == bytes);
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
  std::string future = bytes;
  future[8] = 99;
  test::require_error<CorruptError>([&] { inspect(future, "f"); }, {"format version 99"});
}

TEST_CASE("malformed content with a valid hash is rejected naming the section") {
  // A solid whose node count claims more data than the section holds.
  Snapshot s;
  s.solids.push_back({"block", Points(3, 2), Points(3, 2)});
  std::string bytes = encode(s);
  const std::size_t cols_at = bytes.find("block") + 5;
  const std::uint64_t huge = std::uint64_t(1) << 40;
  std::memcpy(&bytes[cols_at], &huge, 8);
  rehash(bytes);
  test::require_error<CorruptError>([&] { decode(bytes, "f"); },
                                    {"f (section SOLD): solid \"block\" positions: more columns than the data holds"});
}

TEST_CASE("a missing section and a wrong element type are rejected naming them") {
  Snapshot s = full_snapshot();
  std::string bytes = encode(s);
  // Rename STAT: the file is intact but has no STAT section.
  std::string renamed = bytes;
  renamed.replace(renamed.find("STAT"), 4, "XXXX");
  rehash(renamed);
  CHECK_NOTHROW(inspect(renamed, "f"));
  test::require_error<CorruptError>([&] { decode(renamed, "f"); }, {"f: section STAT is missing"});
  // The first face-velocity array says u8 instead of f64.
  std::string retyped = bytes;
  const std::size_t liquid = retyped.find("LIQD") + 16;
  const std::size_t kind_at = liquid + 1 + 8 + 8 + 8 + 3 * sizeof(Real) * s.liquid->particles.cols();
  REQUIRE(retyped[kind_at] == 1);
  retyped[kind_at] = 2;
  rehash(retyped);
  test::require_error<CorruptError>([&] { decode(retyped, "f"); },
                                    {"f (section LIQD): face velocities: unexpected element type"});
}
