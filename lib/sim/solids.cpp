#include "lib/sim/solids.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/sim/solid_mesh.hpp"

namespace fsicut::sim {
namespace {

bool inside(const scene::Shape& s, const Vec3& p) {
  switch (s.type) {
    case scene::Shape::Type::box:
      return (p.array() >= s.min.array()).all() && (p.array() <= s.max.array()).all();
    case scene::Shape::Type::sphere:
      return (p - s.center).norm() <= s.radius;
    case scene::Shape::Type::obj:
      break;
  }
  return false;
}

void check_material(const scene::SolidDesc& desc, const std::string& scene_file) {
  const auto fail = [&](const std::string& key, const std::string& message) {
    throw SceneError(scene_file, desc.pointer + "/" + key, message);
  };
  if (!(desc.density > 0) || !std::isfinite(desc.density)) fail("density", "must be positive");
  if (!(desc.youngs_modulus > 0) || !std::isfinite(desc.youngs_modulus)) fail("youngs_modulus", "must be positive");
  if (!(desc.poisson_ratio >= 0 && desc.poisson_ratio < 0.5)) fail("poisson_ratio", "must be in [0, 0.5)");
  if (!(desc.damping.mass >= 0) || !std::isfinite(desc.damping.mass)) fail("damping/mass", "must be >= 0");
  if (!(desc.damping.stiffness >= 0) || !std::isfinite(desc.damping.stiffness))
    fail("damping/stiffness", "must be >= 0");
  if (!(desc.initial_scale > 0) || !std::isfinite(desc.initial_scale)) fail("initial_scale", "must be positive");
  for (size_t i = 0; i < desc.pinned.size(); ++i)
    if (desc.pinned[i].type == scene::Shape::Type::obj)
      fail("pinned/" + std::to_string(i), "pinned regions must be boxes or spheres");
}

}  // namespace

solid::BodySpec body_spec(const scene::SolidDesc& desc, const std::string& scene_file) {
  check_material(desc, scene_file);
  solid::BodySpec spec;
  spec.name = desc.name;
  spec.density = desc.density;
  spec.youngs_modulus = desc.youngs_modulus;
  spec.poisson_ratio = desc.poisson_ratio;
  spec.tau_m = desc.damping.mass;
  spec.tau_k = desc.damping.stiffness;
  spec.element = desc.element == scene::SolidDesc::Element::quadratic ? solid::ElementOrder::quadratic
                                                                      : solid::ElementOrder::linear;
  spec.velocity = desc.velocity;
  spec.initial_scale = desc.initial_scale;
  if (!desc.pinned.empty())
    spec.pinned = [regions = desc.pinned](const Vec3& x) {
      for (const scene::Shape& shape : regions)
        if (inside(shape, x)) return true;
      return false;
    };
  return spec;
}

solid::Body make_solid(const scene::SolidDesc& desc, const std::string& scene_file) {
  mesh::TetMesh rest = build_solid_mesh(desc.mesh, scene_file);
  const solid::BodySpec spec = body_spec(desc, scene_file);
  // Mesh errors name the scene file and the mesh's pointer, like every input error.
  try {
    return solid::make_body(spec, std::move(rest));
  } catch (const MeshError& e) {
    throw MeshError(scene_file + ": " + desc.mesh.pointer + ": " + e.what());
  }
}

}  // namespace fsicut::sim
