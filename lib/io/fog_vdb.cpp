// The second translation unit that includes OpenVDB (after io/vdb.cpp): the
// fog volume of the smoke, kept apart from the liquid's level set code.
#include "lib/io/fog_vdb.hpp"

#include <openvdb/openvdb.h>
#include <openvdb/io/Archive.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <string>

#include "fsicut/core/version.hpp"
#include "lib/core/error.hpp"
#include "lib/core/hash.hpp"

namespace fsicut::io {
namespace {

// The header layout and the reason are io/vdb.cpp's (make_uuid_deterministic):
// OpenVDB writes a random UUID, which would make identical frames differ.
constexpr std::size_t UUID_OFFSET = 8 + 3 * 4 + 1;
constexpr std::size_t UUID_LENGTH = 36;

void make_fog_uuid_deterministic(std::string& bytes) {
  const auto is_uuid_char = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; };
  if (bytes.size() < UUID_OFFSET + UUID_LENGTH ||
      !std::all_of(bytes.begin() + UUID_OFFSET, bytes.begin() + UUID_OFFSET + UUID_LENGTH, is_uuid_char))
    return;
  std::string rest = bytes;
  rest.erase(UUID_OFFSET, UUID_LENGTH);
  constexpr std::uint64_t BASIS_LOW = 0x84222325cbf29ce4ULL;
  std::uint64_t high = fnv1a(rest, FNV_OFFSET), low = fnv1a(rest, BASIS_LOW);
  high = (high & ~0xf000ULL) | 0x8000ULL;
  low = (low & ~(0xc000ULL << 48)) | (0x8000ULL << 48);
  char uuid[UUID_LENGTH + 1];
  std::snprintf(uuid, sizeof uuid, "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(high >> 32), static_cast<unsigned long long>((high >> 16) & 0xffff),
                static_cast<unsigned long long>(high & 0xffff), static_cast<unsigned long long>(low >> 48),
                static_cast<unsigned long long>(low & 0xffffffffffffULL));
  bytes.replace(UUID_OFFSET, UUID_LENGTH, uuid, UUID_LENGTH);
}

// Archive::write is protected: the bytes io::File would write, in memory.
class FogMemoryArchive : public openvdb::io::Archive {
 public:
  std::string serialize(const openvdb::GridCPtrVec& grids) const {
    std::ostringstream out(std::ios::out | std::ios::binary);
    Archive::write(out, grids, /*seekable=*/true);
    return out.str();
  }
};

}  // namespace

FileDigest write_fog_vdb(const std::filesystem::path& path, const grid::MacGrid& grid,
                         const grid::Array3<Real>& density, UpAxis up, const VdbMetadata& meta) {
  static std::once_flag once;
  std::call_once(once, [] { openvdb::initialize(); });
  const Real dx = grid.dx;
  const Vec3 first = to_output_frame(Vec3(grid.origin + Vec3::Constant(dx / 2)), up);
  openvdb::FloatGrid::Ptr fog = openvdb::FloatGrid::create(0.0f);
  openvdb::math::Transform::Ptr transform = openvdb::math::Transform::createLinearTransform(dx);
  transform->postTranslate(openvdb::Vec3d(first.x(), first.y(), first.z()));
  fog->setTransform(transform);
  fog->setName(SMOKE_GRID_NAME);
  fog->setGridClass(openvdb::GRID_FOG_VOLUME);
  openvdb::FloatGrid::Accessor acc = fog->getAccessor();
  const Vec3i n = density.size();
  for (int k = 0; k < n.z(); ++k)
    for (int j = 0; j < n.y(); ++j)
      for (int i = 0; i < n.x(); ++i) {
        const Real s = density(i, j, k);
        if (!std::isfinite(s))
          throw SimulationError("writing " + path.string() + ": the smoke density of cell (" + std::to_string(i) +
                                ", " + std::to_string(j) + ", " + std::to_string(k) + ") is not finite");
        if (s == 0) continue;
        const openvdb::Coord c = up == UpAxis::y ? openvdb::Coord(i, j, k) : openvdb::Coord(i, -k, j);
        acc.setValue(c, static_cast<float>(s));
      }
  fog->insertMeta("frame", openvdb::Int64Metadata(meta.frame));
  fog->insertMeta("time", openvdb::DoubleMetadata(meta.time));
  fog->insertMeta("fsicut_version", openvdb::StringMetadata(VERSION));
  std::string bytes;
  try {
    bytes = FogMemoryArchive().serialize(openvdb::GridCPtrVec{fog});
  } catch (const openvdb::Exception& e) {
    throw OutputError(ExitCode::io, "cannot write " + path.string() + ": " + e.what());
  }
  make_fog_uuid_deterministic(bytes);
  return write_text_atomically(path, bytes);
}

}  // namespace fsicut::io
