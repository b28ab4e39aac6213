#pragma once
// From a scene's solid description to a deformable body: the material checked
// against the scene's keys, the pinned regions as a test on rest positions,
// the rest mesh (sim/solid_mesh.hpp), errors naming the scene file and pointer.
#include <string>

#include "lib/scene/scene.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::sim {

// The body spec of `desc`: material, element order, initial velocity and
// scale, and `pinned` true in the closed box min..max of a box region and
// within `radius` of a sphere region's centre.
// Throws SceneError(scene_file, desc.pointer + "/<key>", ...) for a
// non-physical material value (density, youngs_modulus, poisson_ratio,
// damping/mass, damping/stiffness, initial_scale) or an `obj` pinned region.
solid::BodySpec body_spec(const scene::SolidDesc& desc, const std::string& scene_file);

// The body of `desc`: build_solid_mesh(desc.mesh), then body_spec(desc), then
// solid::make_body. A mesh the body refuses throws MeshError prefixed with
// "<scene_file>: <desc.mesh.pointer>: ".
solid::Body make_solid(const scene::SolidDesc& desc, const std::string& scene_file);

// Elements through the thinnest dimension of `body`, built from `desc`.
struct Thickness {
  Real elements = 0;    // element layers through it
  Real metres = 0;      // its size [m]
  bool exact = false;   // a box mesh's cells along its shortest axis; else an estimate
};
// A box mesh: the cells and the extent along its shortest axis (ties: the
// fewest cells). Other meshes (TetGen, OBJ) are estimated: twice the largest
// distance from a rest node to the boundary surface (the widest inscribed
// sphere's diameter) over the mean edge length of its tets.
Thickness thickness(const scene::SolidDesc& desc, const solid::Body& body);

// Linear tetrahedra lock in bending: fewer than this many through the
// thinnest dimension and a solid is noticeably too stiff (docs/elements.md:
// 6 layers still 9.5 %, 8 layers 5.4 %).
inline constexpr int LINEAR_LOCKING_LAYERS = 6;

// For a linear-element solid with fewer than LINEAR_LOCKING_LAYERS elements
// through its thinnest dimension, the warning `fsicut` prints at --validate and
// at the run's start: it names the solid, the layers, how much too stiff a
// cantilever that thick bends (measured, docs/elements.md) and
// `"element": "quadratic"` as the remedy. Empty otherwise.
std::string linear_locking_warning(const scene::SolidDesc& desc, const solid::Body& body);

}  // namespace fsicut::sim
