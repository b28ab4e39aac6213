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

}  // namespace fsicut::sim
