#pragma once
// Wavefront OBJ output of a solid's deformed boundary surface, one file per
// frame (`<solid name>.0001.obj`, docs/outputs.md "Files").
#include <filesystem>
#include <string>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/io/atomic.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::io {

// Significant digits of every coordinate: a relative round-off of at most
// 5e-10, far below anything a renderer or an analysis script can see.
inline constexpr int OBJ_SIGNIFICANT_DIGITS = 10;

// Writes the surface `triangles` over the node `positions` to `path`, atomically
// (lib/io/atomic.hpp).
//
//   positions  3 x #nodes, world positions [m] (e.g. all tet-mesh nodes)
//   triangles  #triangles, node indices into `positions`, counter-clockwise seen
//              from outside (lib/mesh/mesh.hpp), written in the given order
//
// Only the nodes that some triangle uses are written, compacted in increasing
// node order: vertex v (1-based) of the file is the v-th smallest used node. The
// same triangles therefore give the same vertex order and the same faces every
// frame, so renderers can interpolate or motion-blur the sequence.
//
// Layout: a `#` header comment (fsicut version, vertex and face counts), an
// `o <object_name>` line when the name is not empty (importers name the object
// after it: the solid's name, not the file's), then `v x y z` lines (%.10g, see OBJ_SIGNIFICANT_DIGITS), then `f a b c` lines with
// 1-based vertex indices. No normals, texture coordinates, groups or materials.
// Positions are written as given: map them to the output frame first
// (io/frame.hpp).
//
// Throws SimulationError (70) if a triangle refers to a node outside
// `positions` or a used position is not finite (a NaN frame is a simulation
// failure, and an OBJ with "nan" breaks every reader), OutputError (73/74) if
// the file cannot be written.
// Returns the digest of the bytes written.
FileDigest write_obj(const std::filesystem::path& path, const Points& positions,
                     const std::vector<mesh::Triangle>& triangles, const std::string& object_name = "");

}  // namespace fsicut::io
