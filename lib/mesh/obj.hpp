#pragma once
// Reading Wavefront OBJ surfaces.
#include <string>

#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// Reads the `v` and `f` records of an OBJ file into one triangle surface.
//
// All objects and groups are merged. Polygons with more than three corners are
// fan-triangulated in file order, (v0, v1, v2), (v0, v2, v3), ...; so when the
// file holds only triangles, triangle i of the result is OBJ face i + 1 and
// vertex j is OBJ vertex j + 1. Negative (relative) indices are resolved.
// Normals, texture coordinates and materials are ignored.
//
// Result: vertices 3 x #`v` records [the file's units, taken as metres];
// triangles keep the file's winding (fsicut expects counter-clockwise seen
// from outside; check_closed_surface() verifies it).
//
// Throws MissingInputError (naming `path`) when the file does not exist or
// cannot be opened, and MeshError (naming `path` and the face or vertex) for a
// face with fewer than three corners, a zero or out-of-range vertex index, or
// a `v` record that is not 3 finite numbers (also naming its line). An OBJ
// without faces is read as an empty mesh; check_closed_surface() rejects it.
SurfaceMesh read_obj(const std::string& path);

}  // namespace fsicut::mesh
