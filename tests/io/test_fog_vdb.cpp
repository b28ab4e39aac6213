// The smoke's fog volume files (lib/io/fog_vdb.hpp).
#include <doctest/doctest.h>

#include <cmath>

#include "lib/core/error.hpp"
#include "lib/io/fog_vdb.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

grid::MacGrid small_grid() {
  grid::MacGrid g;
  g.resolution = {4, 5, 6};
  g.origin = Vec3(1, 2, 3);
  g.dx = 0.5;
  return g;
}

}  // namespace

TEST_CASE("fog vdb: one voxel per cell centred on it, named density, class fog volume, the same bytes twice") {
  test::ScratchDir dir("fog-vdb");
  const grid::MacGrid g = small_grid();
  grid::Array3<Real> s(g.cell_shape(), 0.0);
  s(1, 2, 3) = 0.75;
  s(3, 4, 5) = 2;
  const io::FileDigest a = io::write_fog_vdb(dir / "a.vdb", g, s, io::UpAxis::y, {7, 0.25});
  const io::FileDigest b = io::write_fog_vdb(dir / "b.vdb", g, s, io::UpAxis::y, {7, 0.25});
  CHECK(a == b);
  const io::VdbInfo info = io::read_vdb_info(dir / "a.vdb");
  CHECK(info.name == io::SMOKE_GRID_NAME);
  CHECK(info.grid_class == "fog volume");
  CHECK(info.voxel_size == 0.5);
  CHECK(info.active_voxels == 2);
  const Vec3 c = g.origin + g.dx * Vec3(1.5, 2.5, 3.5);  // cell (1, 2, 3)'s centre
  CHECK(io::sample_vdb(dir / "a.vdb", c) == doctest::Approx(0.75));
  CHECK(io::sample_vdb(dir / "a.vdb", g.origin + g.dx * Vec3(3.5, 4.5, 5.5)) == doctest::Approx(2));
  CHECK(io::sample_vdb(dir / "a.vdb", g.origin + g.dx * Vec3(0.5, 0.5, 0.5)) == 0);
  // z up: the same voxel at (x, -z, y).
  io::write_fog_vdb(dir / "z.vdb", g, s, io::UpAxis::z, {7, 0.25});
  CHECK(io::sample_vdb(dir / "z.vdb", Vec3(c.x(), -c.z(), c.y())) == doctest::Approx(0.75));
}

TEST_CASE("fog vdb: a density that is not finite is a simulation error naming the cell") {
  test::ScratchDir dir("fog-vdb-nan");
  const grid::MacGrid g = small_grid();
  grid::Array3<Real> s(g.cell_shape(), 0.0);
  s(2, 0, 1) = std::nan("");
  test::require_error<SimulationError>([&] { io::write_fog_vdb(dir / "n.vdb", g, s, io::UpAxis::y, {}); },
                                       {"n.vdb", "cell (2, 0, 1)", "not finite"});
  CHECK_FALSE(std::filesystem::exists(dir / "n.vdb"));
}
