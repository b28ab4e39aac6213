#pragma once
// From a scene's mesh description to a solid's tet mesh: the choice among the
// mesh generators of lib/mesh, checked against the scene's keys.
#include <string>

#include "lib/mesh/mesh.hpp"
#include "lib/mesh/primitives.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::sim {

// Builds the rest mesh of a solid:
//  - box:    mesh::box_mesh(min, max, cells)
//  - sphere: mesh::sphere_mesh(center, radius, subdivisions, {max_tet_volume, quality})
//  - shell:  mesh::shell_mesh(center, outer_radius, inner_radius, subdivisions, ...)
//  - obj:    mesh::read_obj(path) + check_closed_surface + tetrahedralize(...)
// then applies desc.transform. `desc.path` is already resolved against the
// scene folder; `scene_file` is used in error messages.
//
// Throws SceneError(scene_file, desc.pointer + "/<key>", ...) for parameters
// the scene loader cannot judge one value at a time (max <= min on some axis,
// inner_radius >= outer_radius) and re-checks the single-value ranges
// (positive radii and cells, subdivisions in [0, MAX_SUBDIVISIONS], quality 0 or
// >= MIN_QUALITY, max_tet_volume >= 0, transform scale > 0) for descriptions
// built in code. A bad OBJ file throws MeshError / MissingInputError naming
// the file, followed by "(used by <scene_file>: <pointer>)".
mesh::TetMesh build_solid_mesh(const scene::MeshDesc& desc, const std::string& scene_file);

// The mesh placement of a scene transform.
mesh::Transform mesh_transform(const scene::Transform& transform);

}  // namespace fsicut::sim
