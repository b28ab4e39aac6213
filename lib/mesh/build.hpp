#pragma once
// From a scene's mesh description to a solid's tet mesh.
#include <string>

#include "lib/mesh/mesh.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::mesh {

// Builds the rest mesh of a solid:
//  - box:    box_mesh(min, max, cells)
//  - sphere: sphere_mesh(center, radius, subdivisions, {max_tet_volume, quality})
//  - shell:  shell_mesh(center, outer_radius, inner_radius, subdivisions, ...)
//  - obj:    read_obj(path) + check_closed_surface + tetrahedralize(...)
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
TetMesh build_solid_mesh(const scene::MeshDesc& desc, const std::string& scene_file);

}  // namespace fsicut::mesh
