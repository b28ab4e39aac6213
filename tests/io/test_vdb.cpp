#include <doctest/doctest.h>

#include <openvdb/openvdb.h>
#include <openvdb/io/File.h>
#include <openvdb/tools/LevelSetRebuild.h>
#include <openvdb/tools/ParticlesToLevelSet.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

#include "lib/core/error.hpp"
#include "lib/io/vdb.hpp"
#include "lib/levelset/particle_interior.hpp"
#include "tests/support.hpp"

using namespace fsicut;
namespace fs = std::filesystem;

namespace {

constexpr Real PI = 3.14159265358979323846;

// Seeds like the fluid module: 8 particles per cell, one per 2 x 2 x 2 sub-cell,
// jittered by up to a quarter sub-cell either way, over the cells [lo, hi) of a
// grid with cell size dx and origin 0; keeps the particles `inside` accepts.
Points seed_particles(Real dx, const Vec3i& lo, const Vec3i& hi,
                      const std::function<bool(const Vec3&)>& inside) {
  constexpr Real SUB_CELL_JITTER = 0.5;
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> u(-0.5, 0.5);
  const Real h = dx / 2;
  std::vector<Vec3> kept;
  for (int k = 2 * lo.z(); k < 2 * hi.z(); ++k)
    for (int j = 2 * lo.y(); j < 2 * hi.y(); ++j)
      for (int i = 2 * lo.x(); i < 2 * hi.x(); ++i) {
        const Vec3 p((i + 0.5 + SUB_CELL_JITTER * u(rng)) * h, (j + 0.5 + SUB_CELL_JITTER * u(rng)) * h,
                     (k + 0.5 + SUB_CELL_JITTER * u(rng)) * h);
        if (inside(p)) kept.push_back(p);
      }
  Points out(3, static_cast<Index>(kept.size()));
  for (std::size_t n = 0; n < kept.size(); ++n) out.col(static_cast<Index>(n)) = kept[n];
  return out;
}

// The 26 directions to the neighbours of a cube, normalized.
std::vector<Vec3> directions() {
  std::vector<Vec3> d;
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i)
        if (i || j || k) d.push_back(Vec3(i, j, k).normalized());
  return d;
}

}  // namespace

TEST_CASE("write_liquid_vdb: one level set named surface, world-space transform, metadata") {
  test::ScratchDir dir("io-vdb");
  const fs::path path = dir / "liquid.0007.vdb";
  const Real dx = 0.05, voxel = dx / 2;
  const Vec3 c(0.3, 0.3, 0.3);
  const Points p = seed_particles(dx, Vec3i(0, 0, 0), Vec3i(12, 12, 12),
                                  [&](const Vec3& x) { return (x - c).norm() < 0.15; });
  io::write_liquid_vdb(path, p, io::liquid_particle_radius(dx), voxel, io::VdbMetadata{7, 0.25});

  const io::VdbInfo info = io::read_vdb_info(path);
  CHECK(info.name == "surface");
  CHECK(info.grid_class == "level set");
  CHECK(info.voxel_size == doctest::Approx(voxel).epsilon(1e-15));
  CHECK(info.uniform_linear);
  CHECK(info.origin_of_index_0.norm() == 0.0);
  CHECK(info.active_voxels > 0);
  // A clean narrow band: the deepest value is the inside background.
  CHECK(info.min_value == doctest::Approx(-io::VDB_HALF_WIDTH * voxel).epsilon(1e-6));
  CHECK(fs::file_size(path) > 0);
  for (const auto& e : fs::directory_iterator(dir.path()))
    CHECK(e.path().filename() == "liquid.0007.vdb");

  openvdb::io::File file(path.string());
  file.open();
  openvdb::GridPtrVecPtr grids = file.getGrids();
  file.close();
  REQUIRE(grids->size() == 1);
  const openvdb::GridBase& g = *grids->front();
  CHECK(g.metaValue<openvdb::Int64>("frame") == 7);
  CHECK(g.metaValue<double>("time") == 0.25);
  CHECK(g.metaValue<std::string>("fsicut_version").size() > 0);
  CHECK(g.metaValue<double>("particle_radius") == io::liquid_particle_radius(dx));
  // World (x, y, z) is index (x, y, z) / voxel: voxel centre (12, 12, 12) is c.
  CHECK(g.transform().worldToIndex(openvdb::Vec3d(0.3, 0.3, 0.3)).eq(openvdb::Vec3d(12, 12, 12), 1e-9));
}

TEST_CASE("write_liquid_vdb: a ball of particles has its zero crossing at the ball radius and about its volume") {
  test::ScratchDir dir("io-vdb");
  const Real dx = 0.05, voxel = dx / 2, R = 12 * dx;
  const Vec3 c(0.8, 0.8, 0.8);
  const Points p = seed_particles(dx, Vec3i(0, 0, 0), Vec3i(32, 32, 32),
                                  [&](const Vec3& x) { return (x - c).norm() < R; });
  const fs::path path = dir / "ball.vdb";
  io::write_liquid_vdb(path, p, io::liquid_particle_radius(dx), voxel, {});

  Real lo = std::numeric_limits<Real>::max(), hi = -lo;
  for (const Vec3& d : directions()) {
    const Real phi = io::sample_vdb(path, c + R * d);
    lo = std::min(lo, phi);
    hi = std::max(hi, phi);
  }
  MESSAGE("phi at the ball radius over 26 directions: [" << lo / dx << ", " << hi / dx << "] dx");
  // phi < 0 at R: the surface encloses the ball in every direction. The union
  // reaches at most r beyond the outermost particle, which lies inside R.
  CHECK(hi < 0);
  CHECK(lo > -io::liquid_particle_radius(dx));
  CHECK(io::sample_vdb(path, c) == doctest::Approx(-io::VDB_HALF_WIDTH * voxel).epsilon(1e-6));
  CHECK(io::sample_vdb(path, c + Vec3(R + 3 * dx, 0, 0)) ==
        doctest::Approx(io::VDB_HALF_WIDTH * voxel).epsilon(1e-6));

  const io::VdbInfo info = io::read_vdb_info(path);
  const Real exact = 4.0 / 3.0 * PI * R * R * R;
  const Real error = info.volume / exact - 1;
  MESSAGE(p.cols() << " particles, ball R = 12 dx, voxel dx/2: VDB volume " << info.volume
                   << " m^3, exact " << exact << " m^3, error " << 100 * error << " %");
  CHECK(error > 0);     // encloses the liquid
  CHECK(error < 0.08);  // about 0.2 dx of padding: 3 * 0.2 / 12 = 5 %
}

TEST_CASE("write_liquid_vdb: volume error of a 16^3-cell block at voxel = dx and dx / 2") {
  test::ScratchDir dir("io-vdb");
  const Real dx = 0.0625;
  const Points p = seed_particles(dx, Vec3i(2, 2, 2), Vec3i(18, 18, 18), [](const Vec3&) { return true; });
  const Real exact = std::pow(16 * dx, 3);
  for (const Real voxel : {dx, dx / 2}) {
    const fs::path path = dir / "block.vdb";
    io::write_liquid_vdb(path, p, io::liquid_particle_radius(dx), voxel, {});
    const io::VdbInfo info = io::read_vdb_info(path);
    const Real error = info.volume / exact - 1;
    MESSAGE(p.cols() << " particles, voxel = dx / " << dx / voxel << ": volume error " << 100 * error
                     << " %, " << info.active_voxels << " active voxels");
    CHECK(error > 0);     // encloses the liquid
    CHECK(error < 0.08);  // about 0.17 dx of padding on 6 faces: 6 * 0.17 / 16 = 6.4 %
  }
}

TEST_CASE("write_liquid_vdb: no particles give a valid empty level set, and a sub-voxel particle is kept") {
  test::ScratchDir dir("io-vdb");
  const Real voxel = 0.1;
  io::write_liquid_vdb(dir / "empty.vdb", Points(3, 0), 0.05, voxel, {});
  const io::VdbInfo empty = io::read_vdb_info(dir / "empty.vdb");
  CHECK(empty.name == "surface");
  CHECK(empty.grid_class == "level set");
  CHECK(empty.active_voxels == 0);
  CHECK(empty.volume == 0);
  CHECK(io::sample_vdb(dir / "empty.vdb", Vec3(0.3, -2, 7)) ==
        doctest::Approx(io::VDB_HALF_WIDTH * voxel).epsilon(1e-6));

  // Radius 0.6 voxel: OpenVDB would drop it by default (minimum 1.5 voxels).
  Points one(3, 1);
  one.col(0) = Vec3(1.0, 2.0, 3.0);
  io::write_liquid_vdb(dir / "one.vdb", one, 0.06, voxel, {});
  const io::VdbInfo single = io::read_vdb_info(dir / "one.vdb");
  MESSAGE("single particle of radius 0.6 voxel: " << single.active_voxels << " active voxels, phi at it "
                                                  << io::sample_vdb(dir / "one.vdb", one.col(0)));
  CHECK(single.active_voxels > 0);
  CHECK(io::sample_vdb(dir / "one.vdb", one.col(0)) < 0);
}

TEST_CASE("write_liquid_vdb / read_vdb_info: errors") {
  test::ScratchDir dir("io-vdb");
  Points p(3, 2);
  p.col(0) = Vec3(0, 0, 0);
  p.col(1) = Vec3(0, std::numeric_limits<Real>::quiet_NaN(), 0);
  CHECK_THROWS_AS(io::write_liquid_vdb(dir / "nan.vdb", p, 0.05, 0.1, {}), SimulationError);
  p.col(1) = Vec3(0.1, 0, 0);
  CHECK_THROWS_AS(io::write_liquid_vdb(dir / "bad.vdb", p, 0.05, 0, {}), SimulationError);
  CHECK_THROWS_AS(io::write_liquid_vdb(dir / "bad.vdb", p, -1, 0.1, {}), SimulationError);
  CHECK(fs::is_empty(dir.path()));

  // Output errors come from the atomic writer: a parent that is a file is 73.
  std::ofstream(dir / "file") << "x";
  try {
    io::write_liquid_vdb(dir / "file" / "liquid.0000.vdb", p, 0.05, 0.1, {});
    FAIL("no exception");
  } catch (const OutputError& e) {
    CHECK(e.code() == ExitCode::cant_create);
  }

  CHECK_THROWS_AS(io::read_vdb_info(dir / "missing.vdb"), MissingInputError);
  std::ofstream(dir / "garbage.vdb") << "not a vdb file";
  try {
    io::read_vdb_info(dir / "garbage.vdb");
    FAIL("no exception");
  } catch (const Error& e) {
    MESSAGE("garbage file: " << std::string(e.what()));
    CHECK(e.code() == ExitCode::data);
  }
}

TEST_CASE("write_liquid_vdb: the deep interior is filled, not rasterized, and the surface is that of all balls") {
  test::ScratchDir dir("io-vdb");
  const Real dx = 0.05, voxel = dx / 2, r = io::liquid_particle_radius(dx);
  // A 16^3-cell block, and spray: lone particles 1 to 3 cells off its top.
  const Points block = seed_particles(dx, Vec3i(2, 2, 2), Vec3i(18, 18, 18), [](const Vec3&) { return true; });
  Points p(3, block.cols() + 12);
  p.leftCols(block.cols()) = block;
  for (int s = 0; s < 12; ++s) p.col(block.cols() + s) = Vec3((4 + s) * dx, (19 + s % 3) * dx, 10.3 * dx);
  const levelset::ParticleInterior interior(p, dx);
  const Index rasterized = static_cast<Index>(interior.surface_particles(p, r).size());
  MESSAGE(p.cols() << " particles, " << rasterized << " outside the deep interior");
  CHECK(rasterized < p.cols() / 2);

  const fs::path path = dir / "block.vdb";
  io::write_liquid_vdb(path, p, r, voxel, {});
  openvdb::io::File file(path.string());
  file.open();
  const openvdb::FloatGrid::Ptr ours = openvdb::gridPtrCast<openvdb::FloatGrid>(file.readGrid("surface"));
  file.close();
  // The union of ALL balls, rasterized and rebuilt as vdb.hpp describes.
  const openvdb::FloatGrid::Ptr raw = openvdb::createLevelSet<openvdb::FloatGrid>(voxel, 2);
  std::vector<openvdb::Vec3R> all;
  for (Index q = 0; q < p.cols(); ++q) all.emplace_back(p(0, q), p(1, q), p(2, q));
  struct List {
    using PosType = openvdb::Vec3R;
    const std::vector<openvdb::Vec3R>& xs;
    std::size_t size() const { return xs.size(); }
    void getPos(std::size_t n, openvdb::Vec3R& x) const { x = xs[n]; }
  } list{all};
  openvdb::tools::ParticlesToLevelSet<openvdb::FloatGrid> raster(*raw);
  raster.setRmin(0);
  raster.rasterizeSpheres(list, r);
  raster.finalize();
  const openvdb::FloatGrid::Ptr full = openvdb::tools::levelSetRebuild(*raw, 0.0f, io::VDB_HALF_WIDTH);

  CHECK(ours->activeVoxelCount() == full->activeVoxelCount());
  const openvdb::FloatGrid::ConstAccessor at = ours->getConstAccessor();
  float worst = 0;
  for (auto it = full->cbeginValueOn(); it; ++it) worst = std::max(worst, std::abs(at.getValue(it.getCoord()) - *it));
  MESSAGE("largest difference to the union of all balls over its band: " << worst / voxel << " voxel");
  CHECK(worst < 1e-4 * voxel);
  CHECK(io::sample_vdb(path, Vec3(10, 10, 10) * dx) == doctest::Approx(-io::VDB_HALF_WIDTH * voxel).epsilon(1e-6));
}
