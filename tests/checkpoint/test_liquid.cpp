// The checkpoint codecs of the liquid (lib/checkpoint/liquid.hpp): every
// stored field survives the round trip bit for bit, an array of another grid
// does not fit (an empty one fits any), a wrong element type and corrupt
// counts are refused naming the section, and the split faces' piece
// velocities come back only onto the same split cells.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "lib/checkpoint/liquid.hpp"
#include "lib/checkpoint/snapshot.hpp"
#include "lib/checkpoint/values.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;

namespace {

grid::MacGrid box_grid(const Vec3i& resolution) {
  grid::MacGrid g;
  g.resolution = resolution;
  g.dx = 0.125;
  return g;
}

template <class T>
void ramp(grid::Array3<T>& a, T start) {
  for (Index n = 0; n < a.count(); ++n) a[n] = static_cast<T>(start + static_cast<T>(n % 97));
}

// A seeded liquid on a 2 x 3 x 4 grid whose every stored field holds values
// of its own (static_phi: not computed yet).
fluid::Liquid sample() {
  const grid::MacGrid g = box_grid(Vec3i(2, 3, 4));
  fluid::Liquid l = fluid::make_liquid(g, 1000, Vec3(0, -9.81, 0), {});
  fluid::add_liquid(l, [](const Vec3& x) { return x.y() < 0.2; }, Vec3(0.25, 0, 0), 8, 1);
  fluid::initialize(l);
  l.particle_radius = 0.01;
  l.particle_volume = 1e-6;
  for (int a = 0; a < 3; ++a) {
    ramp<Real>(l.velocity[a], 0.5 * a + 1e-300);
    ramp<Real>(l.fractions[a], 0.25);
    ramp<char>(l.valid[a], 0);
  }
  ramp<Real>(l.pressure, 100);
  ramp<Real>(l.liquid_phi, -3);
  l.static_phi = {};
  ramp<Real>(l.solid_phi, 2);
  return l;
}

template <class T>
bool same_bits(const grid::Array3<T>& a, const grid::Array3<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data().data(), b.data().data(), sizeof(T) * a.data().size()) == 0;
}

bool same_bits(const Points& a, const Points& b) {
  return a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

std::string bytes_of(const fluid::Liquid& l) {
  ByteWriter w;
  put(w, l);
  return w.bytes();
}

}  // namespace

TEST_CASE("LIQD: every stored field survives the round trip bit for bit") {
  const fluid::Liquid a = sample();
  REQUIRE(a.particles.cols() > 0);
  const std::string bytes = bytes_of(a);
  // A liquid built from the same scene: its particles and fields as seeded.
  fluid::Liquid b = fluid::make_liquid(a.grid, 1000, Vec3(0, -9.81, 0), {});
  ByteReader r(bytes.data(), bytes.size(), "mem (section LIQD)");
  get(r, b);
  CHECK(r.done());
  CHECK(b.particle_radius == a.particle_radius);
  CHECK(b.particle_volume == a.particle_volume);
  CHECK(same_bits(b.particles, a.particles));
  for (int d = 0; d < 3; ++d) {
    CHECK(same_bits(b.velocity[d], a.velocity[d]));
    CHECK(same_bits(b.fractions[d], a.fractions[d]));
    CHECK(same_bits(b.valid[d], a.valid[d]));
  }
  CHECK(same_bits(b.pressure, a.pressure));
  CHECK(same_bits(b.liquid_phi, a.liquid_phi));
  CHECK(b.static_phi.count() == 0);
  CHECK(same_bits(b.static_phi, a.static_phi));
  CHECK(same_bits(b.solid_phi, a.solid_phi));
  CHECK(bytes_of(b) == bytes);
  // The layout: f64 radius, f64 volume, points particles, then the arrays,
  // each u8 kind, 3 x i32 dimensions, the elements.
  double radius;
  std::memcpy(&radius, bytes.data(), 8);
  CHECK(radius == 0.01);
  const std::size_t first = 8 + 8 + 8 + 3 * sizeof(Real) * static_cast<std::size_t>(a.particles.cols());
  CHECK(bytes[first] == 1);
  std::int32_t dims[3];
  std::memcpy(dims, bytes.data() + first + 1, 12);
  CHECK(Vec3i(dims[0], dims[1], dims[2]) == Vec3i(3, 3, 4));
  CHECK(std::memcmp(bytes.data() + first + 13, a.velocity[0].data().data(), sizeof(Real) * 36) == 0);
}

TEST_CASE("LIQD: another grid does not fit - an empty array fits any") {
  const std::string bytes = bytes_of(sample());
  fluid::Liquid coarse = fluid::make_liquid(box_grid(Vec3i(2, 2, 2)), 1000, Vec3(0, -9.81, 0), {});
  ByteReader r(bytes.data(), bytes.size(), "f (section LIQD)");
  const std::string grid = test::require_error<Error>([&] { get(r, coarse); }, {});
  CHECK(grid == "f (section LIQD): does not fit this scene: face velocities is 3 x 3 x 4, the scene's grid needs "
                "3 x 2 x 2");
  // static_phi stored empty into a liquid that has one, and stored into one
  // that has none yet: both fit.
  fluid::Liquid computed = fluid::make_liquid(box_grid(Vec3i(2, 3, 4)), 1000, Vec3(0, -9.81, 0), {});
  computed.static_phi.resize(Vec3i(3, 4, 5), 7.0);
  ByteReader e(bytes.data(), bytes.size(), "f (section LIQD)");
  get(e, computed);
  CHECK(computed.static_phi.count() == 0);
  fluid::Liquid with = sample();
  with.static_phi.resize(Vec3i(3, 4, 5), -0.5);
  const std::string with_bytes = bytes_of(with);
  fluid::Liquid none = fluid::make_liquid(box_grid(Vec3i(2, 3, 4)), 1000, Vec3(0, -9.81, 0), {});
  none.static_phi = {};
  ByteReader w(with_bytes.data(), with_bytes.size(), "f (section LIQD)");
  get(w, none);
  CHECK(same_bits(none.static_phi, with.static_phi));
}

TEST_CASE("LIQD: a wrong element type and counts past the data are refused naming the section") {
  const fluid::Liquid l = sample();
  const std::string bytes = bytes_of(l);
  // The first face-velocity array says u8 instead of f64.
  std::string retyped = bytes;
  const std::size_t kind_at = 8 + 8 + 8 + 3 * sizeof(Real) * static_cast<std::size_t>(l.particles.cols());
  REQUIRE(retyped[kind_at] == 1);
  retyped[kind_at] = 2;
  fluid::Liquid into = sample();
  ByteReader r(retyped.data(), retyped.size(), "f (section LIQD)");
  test::require_error<CorruptError>([&] { get(r, into); },
                                    {"f (section LIQD): face velocities: unexpected element type"});
  // Dimensions claiming more elements than the data holds.
  std::string huge = bytes;
  const std::int32_t big = 1 << 20;
  std::memcpy(&huge[kind_at + 1], &big, 4);
  ByteReader h(huge.data(), huge.size(), "f (section LIQD)");
  test::require_error<CorruptError>([&] { get(h, into); },
                                    {"f (section LIQD): face velocities: 1048576 x 3 x 4 is more than the data holds"});
  // A particle count past the data.
  std::string many = bytes;
  const std::uint64_t cols = std::uint64_t(1) << 40;
  std::memcpy(&many[16], &cols, 8);
  ByteReader m(many.data(), many.size(), "f (section LIQD)");
  test::require_error<CorruptError>([&] { get(m, into); },
                                    {"f (section LIQD): liquid particles: more columns than the data holds"});
  // Cut short: the last array holds less than its dimensions say.
  ByteReader c(bytes.data(), bytes.size() - 1, "f (section LIQD)");
  test::require_error<CorruptError>([&] { get(c, into); },
                                    {"f (section LIQD): valid faces: 2 x 3 x 5 is more than the data holds"});
  ByteReader radius(bytes.data(), 7, "f (section LIQD)");
  test::require_error<CorruptError>([&] { get(radius, into); }, {"f (section LIQD): unexpected end of data"});
}

TEST_CASE("PIEC: piece velocities survive the round trip bit for bit onto the same split cells only") {
  cutcell::SplitCells split;
  split.faces[0][7] = {{0, 1, 0.25}, {1, 0, 0.5}};
  split.faces[0][3] = {{0, 0, 0.125}, {1, 1, 0.125}, {2, 1, 0.5}};
  split.faces[2][11] = {{0, 1, 0.75}, {0, 0, 0.25}};
  fluid::PieceVelocities a;
  a.faces[0][7] = {0.5, -1.25};
  a.faces[0][3] = {1e-300, 2, 3};
  a.faces[2][11] = {-0.0, 4};
  ByteWriter w;
  put(w, a);
  const std::string bytes = w.bytes();
  // Per axis doubles: runs of face, #pieces, velocities, faces in increasing order.
  ByteReader layout(bytes.data(), bytes.size(), "mem");
  CHECK(get_values<double>(layout, "x") == std::vector<double>{3, 3, 1e-300, 2, 3, 7, 2, 0.5, -1.25});
  CHECK(get_values<double>(layout, "y").empty());
  CHECK(get_values<double>(layout, "z") == std::vector<double>{11, 2, -0.0, 4});
  CHECK(layout.done());

  fluid::PieceVelocities b;
  b.faces[1][5] = {9};  // replaced, not kept
  ByteReader r(bytes.data(), bytes.size(), "mem (section PIEC)");
  get(r, b, split);
  CHECK(r.done());
  for (int axis = 0; axis < 3; ++axis) CHECK(b.faces[axis] == a.faces[axis]);
  CHECK(std::signbit(b.faces[2].at(11)[0]));
  ByteWriter again;
  put(again, b);
  CHECK(again.bytes() == bytes);

  // Split cells of other solids: face 7 has one piece more, face 11 is not split.
  cutcell::SplitCells other = split;
  other.faces[0][7].push_back({2, 2, 0.1});
  ByteReader o(bytes.data(), bytes.size(), "f (section PIEC)");
  const std::string pieces = test::require_error<Error>([&] { get(o, b, other); }, {});
  CHECK(pieces == "f (section PIEC): does not fit this scene: the piece velocities of face 7 along axis 0 do not "
                  "match the split cells of the stored solids");
  other = split;
  other.faces[2].clear();
  ByteReader n(bytes.data(), bytes.size(), "f (section PIEC)");
  test::require_error<Error>([&] { get(n, b, other); }, {"face 11 along axis 2 do not match"});
  // A run cut short inside the section.
  ByteWriter cut;
  put_values(cut, std::vector<double>{3});
  put_values(cut, std::vector<double>{});
  put_values(cut, std::vector<double>{});
  ByteReader s(cut.bytes().data(), cut.size(), "f (section PIEC)");
  test::require_error<Error>([&] { get(s, b, split); },
                             {"f (section PIEC): does not fit this scene: a face's record is cut short"});
}

// Members are listed in lib/checkpoint/liquid.hpp as stored or derived. A new
// member changes the struct's size: decide whether it is state, update the
// codec's put and get (and the checkpoint format), then the sizes here. Sizes
// are those of x86-64 with libstdc++, where CI runs.
TEST_CASE("the checkpointed liquid structs have the members liquid.hpp lists") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK_MESSAGE(sizeof(fluid::Liquid) == 1600, "fluid::Liquid changed: update lib/checkpoint/liquid.hpp");
  CHECK_MESSAGE(sizeof(fluid::PieceVelocities) == 168, "fluid::PieceVelocities changed: update lib/checkpoint/liquid.hpp");
#else
  MESSAGE("struct sizes are only recorded for x86-64 with libstdc++");
#endif
}
