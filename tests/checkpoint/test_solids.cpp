// The checkpoint codecs of the Lagrangian solids (lib/checkpoint/solids.hpp):
// a body's positions and velocities and a reduced body's state survive the
// round trip bit for bit, rotations are recomputed, a body of another name,
// node count or mode count does not fit, corrupt counts are refused.
#include <doctest/doctest.h>

#include <Eigen/Geometry>

#include <cstring>
#include <string>

#include "lib/checkpoint/snapshot.hpp"
#include "lib/checkpoint/solids.hpp"
#include "lib/solid/corotation.hpp"
#include "tests/solid/fixtures.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;

namespace {

solid::Body block(const std::string& name, const Vec3i& cells = Vec3i(2, 1, 1)) {
  solid::BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.name = name;
  return test::box_body(d, Vec3(0, 0, 0), Vec3(0.4, 0.2, 0.2), cells);
}

// Moves and deforms `b` (positions and velocities of their own, every value
// distinct), as a few steps would.
void move(solid::Body& b, Real by) {
  for (Index i = 0; i < b.x.size(); ++i) {
    b.x.data()[i] += by * std::sin(1.0 + static_cast<Real>(i));
    b.v.data()[i] = by * std::cos(3.0 * static_cast<Real>(i)) + 1e-300;
  }
  solid::update_rotations(b);
}

bool same_bits(const Points& a, const Points& b) {
  return a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

std::string bytes_of(const std::vector<solid::Body>& bodies) {
  ByteWriter w;
  put(w, bodies);
  return w.bytes();
}

}  // namespace

TEST_CASE("SOLD: bodies survive the round trip bit for bit - rotations are recomputed from the positions") {
  std::vector<solid::Body> a{block("left"), block("right", Vec3i(1, 2, 1))};
  move(a[0], 0.01);
  move(a[1], -0.02);
  const std::string bytes = bytes_of(a);
  std::vector<solid::Body> b{block("left"), block("right", Vec3i(1, 2, 1))};
  ByteReader r(bytes.data(), bytes.size(), "mem (section SOLD)");
  get(r, b);
  CHECK(r.done());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(same_bits(a[i].x, b[i].x));
    CHECK(same_bits(a[i].v, b[i].v));
    REQUIRE(a[i].R.size() == b[i].R.size());
    for (std::size_t t = 0; t < a[i].R.size(); ++t) CHECK(a[i].R[t] == b[i].R[t]);
  }
  CHECK(bytes_of(b) == bytes);
  // The layout: u32 #bodies; str name, points x, points v.
  std::uint32_t count;
  std::memcpy(&count, bytes.data(), 4);
  CHECK(count == 2);
  CHECK(bytes.substr(4, 12) == std::string("\x04\0\0\0\0\0\0\0left", 12));
  std::uint64_t cols;
  std::memcpy(&cols, bytes.data() + 16, 8);
  CHECK(cols == static_cast<std::uint64_t>(a[0].num_nodes()));
  CHECK(std::memcmp(bytes.data() + 24, a[0].x.data(), sizeof(Real) * a[0].x.size()) == 0);
}

TEST_CASE("SOLD: another count, name or node count does not fit - a corrupt count is refused") {
  const std::string bytes = bytes_of({block("left")});
  const auto restore = [&](std::vector<solid::Body> into) {
    ByteReader r(bytes.data(), bytes.size(), "f (section SOLD)");
    get(r, into);
  };
  const std::string count = test::require_error<Error>([&] { restore({block("left"), block("right")}); }, {});
  CHECK(count == "f (section SOLD): does not fit this scene: 1 solids in the checkpoint, 2 in the scene");
  const std::string name = test::require_error<Error>([&] { restore({block("right")}); }, {});
  CHECK(name ==
        "f (section SOLD): does not fit this scene: solid \"left\" in the checkpoint where the scene has \"right\"");
  const solid::Body finer = block("left", Vec3i(3, 1, 1));
  const std::string nodes = test::require_error<Error>([&] { restore({finer}); }, {});
  CHECK(nodes == "f (section SOLD): does not fit this scene: solid \"left\" positions has " +
                     std::to_string(block("left").num_nodes()) + " nodes in the checkpoint, " +
                     std::to_string(finer.num_nodes()) + " in the scene");
  try {
    restore({finer});
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
  }
  // Velocities of another node count than the positions (and the scene).
  solid::Body odd = block("left");
  odd.v.conservativeResize(3, 2);
  const std::string odd_bytes = bytes_of({odd});
  std::vector<solid::Body> into{block("left")};
  ByteReader r(odd_bytes.data(), odd_bytes.size(), "f (section SOLD)");
  const std::string velocities = test::require_error<Error>([&] { get(r, into); }, {});
  CHECK(velocities == "f (section SOLD): does not fit this scene: solid \"left\" velocities has 2 nodes in the "
                      "checkpoint, " + std::to_string(into[0].num_nodes()) + " in the scene");
  // A column count past the data.
  std::string corrupt = bytes;
  const std::uint64_t huge = std::uint64_t(1) << 40;
  std::memcpy(&corrupt[16], &huge, 8);
  ByteReader c(corrupt.data(), corrupt.size(), "f (section SOLD)");
  std::vector<solid::Body> left{block("left")};
  test::require_error<CorruptError>([&] { get(c, left); },
                                    {"f (section SOLD): solid \"left\" positions: more columns than the data holds"});
}

TEST_CASE("REDU: a reduced body's state survives the round trip bit for bit - another mode count does not fit") {
  solid::ReducedState s;
  s.R = Eigen::AngleAxisd(0.3, Vec3(0, 0, 1)).toRotationMatrix();
  s.T = Vec3(1, 2, 3);
  s.v = Vec3(-1, 0, 0.5);
  s.omega = Vec3(0, 0.25, 1e-310);
  s.q = Eigen::Vector3d(0.1, 0.2, 0.3);
  s.qdot = Eigen::Vector3d(-0.1, -0.2, -0.3);
  ByteWriter w;
  put(w, "plank", s);
  const std::string bytes = w.bytes();
  // str name, R (9), T, v, omega, u32 r, q, qdot.
  CHECK(bytes.size() == 8 + 5 + 8 * (9 + 9) + 4 + 8 * 6);
  CHECK(std::memcmp(bytes.data() + 13, s.R.data(), 9 * sizeof(Real)) == 0);

  solid::ReducedBody body;
  body.basis.S = Eigen::MatrixXd::Zero(6, 3);  // 3 modes
  ByteReader r(bytes.data(), bytes.size(), "mem (section REDU)");
  get(r, body, "plank");
  CHECK(r.done());
  const solid::ReducedState& b = body.state;
  CHECK(std::memcmp(b.R.data(), s.R.data(), sizeof(Real) * 9) == 0);
  CHECK(b.T == s.T);
  CHECK(b.v == s.v);
  CHECK(b.omega == s.omega);
  CHECK(b.q == s.q);
  CHECK(b.qdot == s.qdot);
  ByteWriter again;
  put(again, "plank", b);
  CHECK(again.bytes() == bytes);

  solid::ReducedBody other;
  other.basis.S = Eigen::MatrixXd::Zero(6, 5);
  ByteReader m(bytes.data(), bytes.size(), "f (section REDU)");
  const std::string modes = test::require_error<Error>([&] { get(m, other, "plank"); }, {});
  CHECK(modes == "f (section REDU): does not fit this scene: reduced solid \"plank\" has 3 modes in the checkpoint, 5 "
                 "in the scene");
  ByteReader n(bytes.data(), bytes.size(), "f (section REDU)");
  const std::string name = test::require_error<Error>([&] { get(n, body, "buoy"); }, {});
  CHECK(name == "f (section REDU): does not fit this scene: reduced solid \"plank\" in the checkpoint where the scene "
                "has \"buoy\"");
  std::string corrupt = bytes;
  const std::uint32_t many = 1u << 30;
  std::memcpy(&corrupt[13 + 8 * 18], &many, 4);
  ByteReader c(corrupt.data(), corrupt.size(), "f (section REDU)");
  test::require_error<CorruptError>([&] { get(c, body, "plank"); },
                                    {"f (section REDU): reduced solid \"plank\": more modes than the data holds"});
}

// Members are listed in lib/checkpoint/solids.hpp as stored or derived. A new
// member changes the struct's size: decide whether it is state, update the
// codec's put and get (and the checkpoint format), then the sizes here. Sizes
// are those of x86-64 with libstdc++, where CI runs.
TEST_CASE("the checkpointed solid structs have the members solids.hpp lists") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK_MESSAGE(sizeof(solid::Body) == 472, "solid::Body changed: update lib/checkpoint/solids.hpp");
  CHECK_MESSAGE(sizeof(solid::ReducedState) == 176, "solid::ReducedState changed: update lib/checkpoint/solids.hpp");
#else
  MESSAGE("struct sizes are only recorded for x86-64 with libstdc++");
#endif
}
