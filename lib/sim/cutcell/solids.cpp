#include "lib/sim/cutcell/solids.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/mesh/bvh.hpp"
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

// A box of linear tets, L layers through its thickness, as a 7:1 cantilever:
// its static sag over the converged (Euler-Bernoulli plus Timoshenko) one, for
// L = 1..LINEAR_LOCKING_LAYERS - 1 (results/elements.jsonl, docs/elements.md).
constexpr std::array<Real, LINEAR_LOCKING_LAYERS - 1> LINEAR_SAG_RATIO = {0.250, 0.553, 0.729, 0.825, 0.880};

Thickness estimated_thickness(const solid::Body& body) {
  const mesh::TetMesh& m = body.mesh;
  const mesh::TriangleBvh boundary(m.rest, m.boundary);
  Real deepest = 0;
  for (Index i = 0; i < m.rest.cols(); ++i)
    deepest = std::max(deepest, std::sqrt(boundary.closest(m.rest.col(i)).distance2));
  Real edges = 0;
  for (const mesh::Tet& t : m.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) edges += (m.rest.col(t[a]) - m.rest.col(t[b])).norm();
  const Real edge = edges / (6 * static_cast<Real>(m.tets.size()));
  return {2 * deepest / edge, 2 * deepest, false};
}

}  // namespace

Thickness thickness(const scene::SolidDesc& desc, const solid::Body& body) {
  if (desc.mesh.type != scene::MeshDesc::Type::box) return estimated_thickness(body);
  const Vec3 extent = desc.mesh.max - desc.mesh.min;
  int axis = 0;
  for (int d = 1; d < 3; ++d)
    if (extent[d] < extent[axis] || (extent[d] == extent[axis] && desc.mesh.cells[d] < desc.mesh.cells[axis]))
      axis = d;
  return {static_cast<Real>(desc.mesh.cells[axis]), extent[axis], true};
}

std::string linear_locking_warning(const scene::SolidDesc& desc, const solid::Body& body) {
  if (body.quadratic()) return "";
  const Thickness t = thickness(desc, body);
  const int layers = std::max(1, static_cast<int>(std::lround(t.elements)));
  if (layers >= LINEAR_LOCKING_LAYERS) return "";
  const Real sag = LINEAR_SAG_RATIO[static_cast<std::size_t>(layers - 1)];
  char text[512];
  std::snprintf(text, sizeof text,
                "solid \"%s\" has %s%d linear element%s through its thinnest dimension (%.3g m): linear tetrahedra "
                "lock in bending, so expect it about %.0f %% too stiff (a cantilever %d element%s thick sags %.3g "
                "of the converged deflection; docs/elements.md); use \"element\": \"quadratic\" (1-2 elements "
                "through suffice) or at least %d linear elements",
                body.name.c_str(), t.exact ? "" : "about ", layers, layers == 1 ? "" : "s", t.metres,
                100 * (1 / sag - 1), layers, layers == 1 ? "" : "s", sag, LINEAR_LOCKING_LAYERS);
  return text;
}

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
