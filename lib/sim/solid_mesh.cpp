#include "lib/sim/solid_mesh.hpp"

#include <cmath>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"
#include "lib/mesh/primitives.hpp"
#include "lib/mesh/tetgen.hpp"

namespace fsicut::sim {
namespace {

// Tetrahedra one TetGen mesh may have: 100x the paper's largest solid, about
// 2 GB of solid data (lib/sim/resources.hpp BYTES_PER_TET).
constexpr Real MAX_TETGEN_TETS = 1e6;

using scene::MeshDesc;

class Validator {
 public:
  Validator(const MeshDesc& desc, const std::string& file) : desc_(desc), file_(file) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw SceneError(file_, desc_.pointer + "/" + key, message);
  }
  void positive(const std::string& key, Real value) const {
    if (!(value > 0) || !std::isfinite(value)) fail(key, "must be positive, got " + text(value));
  }
  void subdivisions() const {
    if (desc_.subdivisions < 0 || desc_.subdivisions > mesh::MAX_SUBDIVISIONS)
      fail("subdivisions", "must be in [0, " + std::to_string(mesh::MAX_SUBDIVISIONS) + "], got " +
                               std::to_string(desc_.subdivisions));
  }
  // `volume` [m^3]: what the surface encloses (before the transform's scale).
  void tetgen(Real volume) const {
    if (!(desc_.max_tet_volume >= 0) || !std::isfinite(desc_.max_tet_volume))
      fail("max_tet_volume", "must be >= 0 (0: no bound), got " + text(desc_.max_tet_volume));
    // TetGen makes at least volume / max_tet_volume tets; past the budget it
    // would run for hours and exhaust memory (1e-12 never returned).
    if (desc_.max_tet_volume > 0 && volume / desc_.max_tet_volume > MAX_TETGEN_TETS)
      fail("max_tet_volume", "would make at least " + text(volume / desc_.max_tet_volume) +
                                 " tetrahedra (enclosed volume " + text(volume) + " m^3 / " +
                                 text(desc_.max_tet_volume) + "); at most " + text(MAX_TETGEN_TETS) +
                                 ": use a larger bound");
    if (!(desc_.quality == 0 || desc_.quality >= mesh::MIN_QUALITY) || !std::isfinite(desc_.quality))
      fail("quality", "must be 0 (no refinement) or >= " + text(mesh::MIN_QUALITY) + ", got " + text(desc_.quality));
  }
  static std::string text(Real v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }

 private:
  const MeshDesc& desc_;
  const std::string& file_;
};

mesh::TetMesh build_untransformed(const MeshDesc& desc, const std::string& scene_file) {
  const Validator check(desc, scene_file);
  const mesh::TetgenOptions options{desc.max_tet_volume, desc.quality};
  switch (desc.type) {
    case MeshDesc::Type::box:
      for (int d = 0; d < 3; ++d) {
        if (!(desc.max[d] > desc.min[d]))
          check.fail("max", "must exceed min on every axis (axis " + std::to_string(d) + ": min " +
                                Validator::text(desc.min[d]) + ", max " + Validator::text(desc.max[d]) + ")");
        if (desc.cells[d] < 1) check.fail("cells", "must be >= 1 on every axis");
      }
      return mesh::box_mesh(desc.min, desc.max, desc.cells);
    case MeshDesc::Type::sphere:
      check.positive("radius", desc.radius);
      check.subdivisions();
      check.tetgen(4.0 / 3.0 * M_PI * std::pow(desc.radius, 3));
      return mesh::sphere_mesh(desc.center, desc.radius, desc.subdivisions, options);
    case MeshDesc::Type::shell:
      check.positive("outer_radius", desc.outer_radius);
      check.positive("inner_radius", desc.inner_radius);
      if (desc.inner_radius >= desc.outer_radius)
        check.fail("inner_radius", "must be smaller than outer_radius (" + Validator::text(desc.inner_radius) +
                                       " >= " + Validator::text(desc.outer_radius) + ")");
      check.subdivisions();
      check.tetgen(4.0 / 3.0 * M_PI * (std::pow(desc.outer_radius, 3) - std::pow(desc.inner_radius, 3)));
      return mesh::shell_mesh(desc.center, desc.outer_radius, desc.inner_radius, desc.subdivisions, options);
    case MeshDesc::Type::obj: {
      const mesh::SurfaceMesh surface = mesh::read_obj(desc.path);
      mesh::check_closed_surface(surface, desc.path);
      check.tetgen(mesh::enclosed_volume(surface));
      return mesh::tetrahedralize(surface, options, desc.path);
    }
  }
  throw SceneError(scene_file, desc.pointer + "/type", "unknown mesh type");
}

}  // namespace

mesh::Transform mesh_transform(const scene::Transform& transform) {
  return mesh::Transform{transform.translate, transform.rotate, transform.scale};
}

mesh::TetMesh build_solid_mesh(const MeshDesc& desc, const std::string& scene_file) {
  if (!(desc.transform.scale > 0) || !std::isfinite(desc.transform.scale))
    throw SceneError(scene_file, desc.pointer + "/transform/scale",
                     "must be positive, got " + Validator::text(desc.transform.scale));
  const std::string context = " (used by " + scene_file + ": " + desc.pointer + ")";
  try {
    mesh::TetMesh placed = build_untransformed(desc, scene_file);
    mesh::apply_transform(placed, mesh_transform(desc.transform));
    return placed;
  } catch (const MeshError& e) {
    throw MeshError(e.what() + context);
  } catch (const MissingInputError& e) {
    throw MissingInputError(e.what() + context);
  }
}

}  // namespace fsicut::sim
