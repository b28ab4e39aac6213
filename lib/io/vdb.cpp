// The one translation unit that includes OpenVDB (it compiles for ~30 s).
#include "lib/io/vdb.hpp"

#include <openvdb/openvdb.h>
#include <openvdb/io/File.h>
#include <openvdb/tools/Interpolation.h>
#include <openvdb/tools/LevelSetMeasure.h>
#include <openvdb/tools/LevelSetRebuild.h>
#include <openvdb/tools/MeshToVolume.h>
#include <openvdb/points/PointConversion.h>
#include <openvdb/points/PointCount.h>
#include <openvdb/tools/Composite.h>
#include <openvdb/tools/ParticlesToLevelSet.h>
#include <openvdb/tools/Prune.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/hash.hpp"
#include "fsicut/core/version.hpp"
#include "lib/io/atomic.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/particle_interior.hpp"

namespace fsicut::io {

Real liquid_particle_radius(Real cell_size) { return levelset::PARTICLE_RADIUS_CELLS * cell_size; }

namespace {

// Half width [voxels] of the band the spheres are rasterized into before the
// rebuild. It only has to give exact distances at every voxel of a cube the zero
// crossing passes through (at most sqrt(3) voxels away); 2 instead of 3 makes
// the rasterization 2.5x faster (262k particles: 1.7 s instead of 4.2 s) and
// the rebuild restores the full VDB_HALF_WIDTH band.
constexpr Real RASTER_HALF_WIDTH = 2;

// OpenVDB registers its grid and metadata types in initialize(); it must run
// before any file is read or written, and once is enough.
void initialize_openvdb() {
  static std::once_flag once;
  std::call_once(once, [] { openvdb::initialize(); });
}

// OpenVDB's interrupter interface over an AbandonRequest: its long loops
// stop early once the request is made, and now() then throws Abandoned.
struct AbandonCheck {
  const AbandonRequest* request = nullptr;
  void start(const char* = nullptr) {}
  void end() {}
  bool wasInterrupted(int = -1) const { return request && request->requested(); }
  void now() const {
    if (request) request->check();
  }
};

// The particle list interface ParticlesToLevelSet expects, over the columns
// `which` of a 3 x n matrix.
class ParticleList {
 public:
  using PosType = openvdb::Vec3R;
  ParticleList(const Points& points, const std::vector<Index>& which) : points_(points), which_(which) {}
  std::size_t size() const { return which_.size(); }
  void getPos(std::size_t n, openvdb::Vec3R& xyz) const {
    const auto p = points_.col(which_[n]);
    xyz = openvdb::Vec3R(p.x(), p.y(), p.z());
  }

 private:
  const Points& points_;
  const std::vector<Index>& which_;
};

// Sets every voxel whose centre lies in a deep cell of `interior` to the
// inside value -background, inactive, and prunes uniform nodes to tiles: the
// level set's interior, which the skipped particles' balls lie in.
void fill_interior(openvdb::FloatGrid& grid, const levelset::ParticleInterior& interior) {
  const Real voxel = grid.voxelSize()[0];
  const float inside = -grid.background();
  // Voxel v of cell c: c * cell <= v * voxel < (c + 1) * cell.
  const auto first_voxel = [&](int c) { return static_cast<int>(std::ceil(c * interior.cell() / voxel)); };
  for (const levelset::ParticleInterior::Run& run : interior.deep_runs()) {
    const openvdb::Coord lo(first_voxel(run.first.x()), first_voxel(run.first.y()), first_voxel(run.first.z()));
    const openvdb::Coord hi(first_voxel(run.first.x() + run.length) - 1, first_voxel(run.first.y() + 1) - 1,
                            first_voxel(run.first.z() + 1) - 1);
    if (lo.x() <= hi.x() && lo.y() <= hi.y() && lo.z() <= hi.z())
      grid.tree().fill(openvdb::CoordBBox(lo, hi), inside, /*active=*/false);
  }
  openvdb::tools::pruneLevelSet(grid.tree());
}

openvdb::FloatGrid::Ptr read_first_float_grid(const std::filesystem::path& path) {
  initialize_openvdb();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw MissingInputError("cannot read " + quote_path(path) + ": no such file");
  openvdb::GridBase::Ptr base;
  try {
    openvdb::io::File file(path.string());
    file.open();
    openvdb::io::File::NameIterator names = file.beginName();
    if (names == file.endName())
      throw Error(ExitCode::data, "cannot read " + quote_path(path) + ": the VDB file holds no grid");
    base = file.readGrid(names.gridName());
    file.close();
  } catch (const openvdb::Exception& e) {
    throw Error(ExitCode::data, "cannot read " + quote_path(path) + ": " + e.what());
  }
  openvdb::FloatGrid::Ptr grid = openvdb::gridPtrCast<openvdb::FloatGrid>(base);
  if (!grid)
    throw Error(ExitCode::data, "cannot read " + quote_path(path) + ": grid " +
                                    quote_path(base->getName()) + " is not a float grid");
  return grid;
}

// The grid `name` of the file at `path`, null when the file has none by that
// name; throws as read_first_float_grid for a missing or unreadable file.
openvdb::GridBase::Ptr read_named_grid(const std::filesystem::path& path, const std::string& name) {
  initialize_openvdb();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw MissingInputError("cannot read " + quote_path(path) + ": no such file");
  openvdb::GridBase::Ptr base;
  try {
    openvdb::io::File file(path.string());
    file.open();
    if (file.hasGrid(name)) base = file.readGrid(name);
    file.close();
  } catch (const openvdb::Exception& e) {
    throw Error(ExitCode::data, "cannot read " + quote_path(path) + ": " + e.what());
  }
  return base;
}

// OpenVDB stamps every file with a fresh random UUID (io::Archive::writeHeader
// seeds a generator from std::random_device and the clock; there is no API to
// choose it), so two runs writing the same grid would give different bytes.
// Its documented purpose is to tell whether a file changed since it was last
// read (Archive::getUniqueTag, isIdentical, File::open's return value); a UUID
// derived from the rest of the file serves that purpose exactly, and makes
// identical frames identical files. The header is: magic (8 bytes), file
// format version, library major and minor version (uint32 each), the
// has-grid-offsets flag (1 byte), then the UUID as 36 ASCII characters.
constexpr std::size_t VDB_UUID_OFFSET = 8 + 3 * 4 + 1;
constexpr std::size_t VDB_UUID_LENGTH = 36;

// Replaces the random UUID in the VDB file `bytes` by one derived from the
// file's other bytes: an RFC 9562 version-8 (custom) UUID, so readers that
// parse it still accept it.
void make_uuid_deterministic(std::string& bytes) {
  const auto is_uuid_char = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; };
  // Only touch a header that looks as expected: another OpenVDB version with
  // another layout keeps its random UUID rather than getting a corrupt one.
  if (bytes.size() < VDB_UUID_OFFSET + VDB_UUID_LENGTH ||
      !std::all_of(bytes.begin() + VDB_UUID_OFFSET, bytes.begin() + VDB_UUID_OFFSET + VDB_UUID_LENGTH, is_uuid_char))
    return;
  std::string rest = bytes;
  rest.erase(VDB_UUID_OFFSET, VDB_UUID_LENGTH);
  // FNV-1a 64 from two offset bases gives 128 bits: the standard basis and
  // its two 32-bit halves swapped.
  constexpr std::uint64_t BASIS_HIGH = FNV_OFFSET, BASIS_LOW = 0x84222325cbf29ce4ULL;
  std::uint64_t high = fnv1a(rest, BASIS_HIGH), low = fnv1a(rest, BASIS_LOW);
  high = (high & ~0xf000ULL) | 0x8000ULL;                                // version 8
  low = (low & ~(0xc000ULL << 48)) | (0x8000ULL << 48);                  // variant 10
  char uuid[VDB_UUID_LENGTH + 1];
  std::snprintf(uuid, sizeof uuid, "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(high >> 32), static_cast<unsigned long long>((high >> 16) & 0xffff),
                static_cast<unsigned long long>(high & 0xffff), static_cast<unsigned long long>(low >> 48),
                static_cast<unsigned long long>(low & 0xffffffffffffULL));
  bytes.replace(VDB_UUID_OFFSET, VDB_UUID_LENGTH, uuid, VDB_UUID_LENGTH);
}

// io::File::write opens an std::ofstream, calls Archive::write and closes it
// without looking at the stream's state. Archive::write itself is protected:
// this subclass calls it on a string stream, with the same arguments as
// io::File (seekable, so the file carries grid offsets), which gives the same
// bytes in memory, where fsicut can check them and write them itself.
class MemoryArchive : public openvdb::io::Archive {
 public:
  std::string serialize(const openvdb::GridCPtrVec& grids, const std::filesystem::path& target) const {
    std::ostringstream out(std::ios::out | std::ios::binary);
    Archive::write(out, grids, /*seekable=*/true);
    if (!out)
      throw OutputError(ExitCode::io, "cannot write " + quote_path(target) + ": serializing the grid failed");
    return out.str();
  }
};

// The grid LIQUID_VELOCITY_GRID_NAME: `velocity` [m/s] sampled at the world
// positions of the active voxels of `surface` (same transform and topology).
// Throws SimulationError naming `path` at a non-finite sample.
openvdb::Vec3SGrid::Ptr velocity_grid(const openvdb::FloatGrid& surface, const VelocityField& velocity,
                                      const std::filesystem::path& path) {
  openvdb::Vec3SGrid::Ptr v = openvdb::Vec3SGrid::create(openvdb::Vec3s(0, 0, 0));
  v->setTransform(surface.transform().copy());
  v->setName(LIQUID_VELOCITY_GRID_NAME);
  v->setVectorType(openvdb::VEC_CONTRAVARIANT_RELATIVE);
  v->topologyUnion(surface);
  for (openvdb::Vec3SGrid::ValueOnIter it = v->beginValueOn(); it; ++it) {
    const openvdb::Vec3d x = v->transform().indexToWorld(it.getCoord());
    const Vec3 u = velocity(Vec3(x.x(), x.y(), x.z()));
    if (!u.allFinite())
      throw SimulationError("writing " + path.string() + ": the liquid velocity at (" + std::to_string(x.x()) +
                            ", " + std::to_string(x.y()) + ", " + std::to_string(x.z()) + ") is not finite");
    it.setValue(openvdb::Vec3s(static_cast<float>(u.x()), static_cast<float>(u.y()), static_cast<float>(u.z())));
  }
  return v;
}

// The point data grid LIQUID_PARTICLES_GRID_NAME of the marker particles
// (3 x #particles [m]), in `transform`.
openvdb::points::PointDataGrid::Ptr particle_grid(const Points& particles, const openvdb::math::Transform& transform) {
  std::vector<openvdb::Vec3R> positions;
  positions.reserve(static_cast<std::size_t>(particles.cols()));
  for (Index p = 0; p < particles.cols(); ++p)
    positions.emplace_back(particles(0, p), particles(1, p), particles(2, p));
  const openvdb::points::PointDataGrid::Ptr points =
      openvdb::points::createPointDataGrid<openvdb::points::NullCodec, openvdb::points::PointDataGrid>(positions,
                                                                                                      transform);
  points->setName(LIQUID_PARTICLES_GRID_NAME);
  return points;
}

}  // namespace

FileDigest write_liquid_vdb(const std::filesystem::path& path, const Points& particles,
                            Real particle_radius, Real voxel_size, const VdbMetadata& meta,
                            const VelocityField& velocity, bool with_particles, const AbandonRequest* abandon) {
  if (!(voxel_size > 0) || !std::isfinite(voxel_size))
    throw SimulationError("writing " + path.string() + ": voxel size " +
                          std::to_string(voxel_size) + " is not a positive length");
  if (!(particle_radius > 0) || !std::isfinite(particle_radius))
    throw SimulationError("writing " + path.string() + ": particle radius " +
                          std::to_string(particle_radius) + " is not a positive length");
  // A NaN position would be cast to a voxel coordinate inside OpenVDB
  // (undefined behaviour); a NaN particle means the simulation already failed.
  for (Index p = 0; p < particles.cols(); ++p)
    if (!particles.col(p).allFinite())
      throw SimulationError("writing " + path.string() + ": particle " + std::to_string(p) +
                            " has a non-finite position");

  initialize_openvdb();
  AbandonCheck check{abandon};
  openvdb::FloatGrid::Ptr grid;
  if (particles.cols() == 0) {
    grid = openvdb::createLevelSet<openvdb::FloatGrid>(voxel_size, VDB_HALF_WIDTH);
  } else {
    openvdb::FloatGrid::Ptr raw =
        openvdb::createLevelSet<openvdb::FloatGrid>(voxel_size, RASTER_HALF_WIDTH);
    // Only the balls that reach out of the liquid's deep interior are
    // rasterized; the interior is filled as inside (levelset/particle_interior).
    const levelset::ParticleInterior interior(particles, particle_radius / levelset::PARTICLE_RADIUS_CELLS);
    const std::vector<Index> surface = interior.surface_particles(particles, particle_radius);
    ParticleList list(particles, surface);
    check.now();
    openvdb::tools::ParticlesToLevelSet<openvdb::FloatGrid, void, AbandonCheck> raster(*raw, &check);
    // Our spheres are a physical choice, not a rendering one: keep them however
    // small (OpenVDB's default minimum of 1.5 voxels would silently drop every
    // particle when voxel = cell size) and however large.
    raster.setRmin(0);
    raster.setRmax(std::numeric_limits<Real>::max());
    raster.rasterizeSpheres(list, particle_radius);
    raster.finalize();
    check.now();
    if (raster.ignoredParticles())
      throw SimulationError("writing " + path.string() + ": OpenVDB ignored " +
                            std::to_string(raster.getMinCount() + raster.getMaxCount()) +
                            " particles");
    fill_interior(*raw, interior);
    // The raw union min_p |x - p| - r is a distance only outside: inside it
    // never gets deeper than -r, so with sphere radii below the band width the
    // whole interior is "near the surface" (levelSetVolume was off by -30%,
    // meshers and filters see interior bumps). Rebuilding from the zero
    // crossing gives a true signed distance in the band on both sides and an
    // empty (tiled) interior.
    check.now();
    const float band = static_cast<float>(VDB_HALF_WIDTH);
    grid = openvdb::tools::levelSetRebuild(*raw, /*isovalue=*/0.0f, band, band, nullptr, &check);
    check.now();
  }
  grid->setName(LIQUID_GRID_NAME);
  grid->setGridClass(openvdb::GRID_LEVEL_SET);

  grid->insertMeta("frame", openvdb::Int64Metadata(meta.frame));
  grid->insertMeta("time", openvdb::DoubleMetadata(meta.time));
  grid->insertMeta("fsicut_version", openvdb::StringMetadata(VERSION));
  grid->insertMeta("particle_radius", openvdb::DoubleMetadata(particle_radius));
  grid->insertMeta("voxel_size", openvdb::DoubleMetadata(voxel_size));

  openvdb::GridCPtrVec grids{grid};
  if (velocity) grids.push_back(velocity_grid(*grid, velocity, path));
  check.now();
  if (with_particles) grids.push_back(particle_grid(particles, grid->transform()));
  check.now();

  std::string bytes;
  try {
    bytes = MemoryArchive().serialize(grids, path);
  } catch (const openvdb::Exception& e) {
    throw OutputError(ExitCode::io, "cannot write " + quote_path(path) + ": " + e.what());
  }
  make_uuid_deterministic(bytes);
  return write_text_atomically(path, bytes);
}

VdbInfo read_vdb_info(const std::filesystem::path& path) {
  const openvdb::FloatGrid::Ptr grid = read_first_float_grid(path);
  VdbInfo info;
  info.name = grid->getName();
  info.grid_class = openvdb::GridBase::gridClassToString(grid->getGridClass());
  const openvdb::math::Transform& transform = grid->transform();
  info.voxel_size = transform.voxelSize()[0];
  info.uniform_linear = transform.isLinear() && transform.hasUniformScale();
  const openvdb::Vec3d origin = transform.indexToWorld(openvdb::Coord(0, 0, 0));
  info.origin_of_index_0 = Vec3(origin.x(), origin.y(), origin.z());
  info.active_voxels = static_cast<Index>(grid->activeVoxelCount());
  if (info.active_voxels > 0 && grid->getGridClass() == openvdb::GRID_LEVEL_SET)
    info.volume = openvdb::tools::levelSetVolume(*grid);
  float min_value = grid->background();
  for (auto it = grid->tree().cbeginValueAll(); it; ++it) {
    min_value = std::min(min_value, *it);
    if (*it < 0) info.inside_voxels += static_cast<Index>(it.getVoxelCount());
  }
  info.min_value = min_value;
  return info;
}

Real sample_vdb(const std::filesystem::path& path, const Vec3& world) {
  const openvdb::FloatGrid::Ptr grid = read_first_float_grid(path);
  const openvdb::tools::GridSampler<openvdb::FloatGrid, openvdb::tools::BoxSampler> sampler(*grid);
  return sampler.wsSample(openvdb::Vec3d(world.x(), world.y(), world.z()));
}

Vec3 sample_vdb_vector(const std::filesystem::path& path, const std::string& name, const Vec3& world) {
  const openvdb::GridBase::Ptr base = read_named_grid(path, name);
  const openvdb::Vec3SGrid::Ptr grid = openvdb::gridPtrCast<openvdb::Vec3SGrid>(base);
  if (!grid) throw Error(ExitCode::data, "cannot read " + quote_path(path) + ": no vec3s grid " + quote_path(name));
  const openvdb::tools::GridSampler<openvdb::Vec3SGrid, openvdb::tools::BoxSampler> sampler(*grid);
  const openvdb::Vec3s u = sampler.wsSample(openvdb::Vec3d(world.x(), world.y(), world.z()));
  return {u.x(), u.y(), u.z()};
}

VdbPoints read_vdb_points(const std::filesystem::path& path, const std::string& name) {
  const openvdb::GridBase::Ptr base = read_named_grid(path, name);
  const openvdb::points::PointDataGrid::Ptr grid = openvdb::gridPtrCast<openvdb::points::PointDataGrid>(base);
  if (!grid) throw Error(ExitCode::data, "cannot read " + quote_path(path) + ": no points grid " + quote_path(name));
  VdbPoints out;
  out.count = static_cast<Index>(openvdb::points::pointCount(grid->tree()));
  for (auto leaf = grid->tree().cbeginLeaf(); leaf; ++leaf) {
    const openvdb::points::AttributeHandle<openvdb::Vec3f> position(leaf->constAttributeArray("P"));
    for (auto index = leaf->beginIndexOn(); index; ++index) {
      const openvdb::Vec3d world =
          grid->transform().indexToWorld(index.getCoord().asVec3d() + position.get(*index));
      out.centroid += Vec3(world.x(), world.y(), world.z()) / static_cast<Real>(out.count);
    }
  }
  return out;
}

void write_preview_vdb(const std::filesystem::path& out, const std::filesystem::path& liquid_vdb,
                       const std::vector<PreviewSolid>& solids, Real voxel_size) {
  initialize_openvdb();
  const openvdb::math::Transform::Ptr transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  const float half_width = static_cast<float>(VDB_HALF_WIDTH);
  openvdb::FloatGrid::Ptr liquid = openvdb::createLevelSet<openvdb::FloatGrid>(voxel_size, half_width);
  if (!liquid_vdb.empty()) {
    // By name: the file may also hold the points grid `particles` and the
    // velocity grid `v` (output/liquid_particles, output/liquid_velocity).
    const openvdb::FloatGrid::Ptr read =
        openvdb::gridPtrCast<openvdb::FloatGrid>(read_named_grid(liquid_vdb, LIQUID_GRID_NAME));
    if (!read)
      throw Error(ExitCode::data, "cannot read " + quote_path(liquid_vdb) + ": no float grid \"" +
                                      std::string(LIQUID_GRID_NAME) + "\" (not a liquid.NNNN.vdb fsicut wrote)");
    // Onto the preview's voxels (the liquid's own voxel size may differ).
    liquid = openvdb::tools::levelSetRebuild(*read, 0.0f, half_width, transform.get());
  }
  openvdb::FloatGrid::Ptr solid = openvdb::createLevelSet<openvdb::FloatGrid>(voxel_size, half_width);
  for (const PreviewSolid& s : solids) {
    std::vector<openvdb::Vec3s> points;
    for (Index v = 0; v < s.vertices.cols(); ++v)
      points.emplace_back(static_cast<float>(s.vertices(0, v)), static_cast<float>(s.vertices(1, v)),
                          static_cast<float>(s.vertices(2, v)));
    std::vector<openvdb::Vec3I> triangles;
    for (const Eigen::Vector3i& t : s.triangles) triangles.emplace_back(t[0], t[1], t[2]);
    openvdb::FloatGrid::Ptr one =
        openvdb::tools::meshToLevelSet<openvdb::FloatGrid>(*transform, points, triangles, half_width);
    openvdb::tools::csgUnion(*solid, *one);
  }
  openvdb::FloatGrid::Ptr surface = liquid->deepCopy();
  openvdb::FloatGrid::Ptr solid_copy = solid->deepCopy();
  openvdb::tools::csgUnion(*surface, *solid_copy);
  surface->setName(PREVIEW_SURFACE_GRID);
  surface->setGridClass(openvdb::GRID_LEVEL_SET);

  const openvdb::Vec3s blue(0.25f, 0.5f, 0.95f), orange(0.95f, 0.6f, 0.25f);
  openvdb::Vec3SGrid::Ptr color = openvdb::Vec3SGrid::create(blue);
  color->setTransform(transform->copy());
  color->setName(PREVIEW_COLOR_GRID);
  color->topologyUnion(*surface);
  const openvdb::FloatGrid::ConstAccessor at_liquid = liquid->getConstAccessor();
  const openvdb::FloatGrid::ConstAccessor at_solid = solid->getConstAccessor();
  for (openvdb::Vec3SGrid::ValueOnIter v = color->beginValueOn(); v; ++v)
    v.setValue(at_liquid.getValue(v.getCoord()) <= at_solid.getValue(v.getCoord()) ? blue : orange);

  std::string bytes;
  try {
    bytes = MemoryArchive().serialize(openvdb::GridCPtrVec{surface, color}, out);
  } catch (const openvdb::Exception& e) {
    throw OutputError(ExitCode::io, "cannot write " + quote_path(out) + ": " + e.what());
  }
  write_text_atomically(out, bytes);
}

}  // namespace fsicut::io
