#pragma once
// Filling closed surfaces with tetrahedra (TetGen 1.5).
#include <string>
#include <vector>

#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// TetGen's quality refinement may not terminate for radius-edge bounds below
// about 1 (its manual recommends >= 1.1 for robustness); smaller positive
// bounds are rejected.
constexpr Real MIN_QUALITY = 1.0;

// Tetrahedralizes the volume enclosed by `surface` with TetGen: switches
// "pzA" + "Y" (keep the input triangles), or, when options.max_tet_volume > 0,
// "a<max_tet_volume>O0" instead of "Y"; plus "q<quality>" when quality > 0.
//
// `surface` must be closed and outward (run check_closed_surface() first). It
// may have several components: a component inside another with inward-facing
// triangles bounds a cavity.
//
// Surface: without a volume bound the input triangles are kept as they are
// (TetGen adds Steiner points inside only) and the result's boundary is the
// input surface. With a bound, TetGen may split surface triangles (it could
// not honour the bound next to large ones otherwise) and its final mesh
// optimization is off (it would push tets up to ~20% past the bound). Either
// way, new surface points lie on the input triangles, so the volume equals
// enclosed_volume(surface) up to round-off, and every tet is <= the bound.
//
// Cavities: TetGen itself only removes what lies outside the outer surface.
// Each point of `holes` [m] marks a region to leave empty; in addition, every
// region TetGen finds whose winding number with respect to the oriented
// surface is zero (e.g. the inside of an inward-facing inner shell) is
// removed, so holes are only needed for surfaces that do not say it by
// their orientation.
//
// Result: positively oriented tets, no unused nodes, `boundary` from
// extract_boundary() (outward, on tet nodes). Node order: the used surface
// vertices first, in their order in `surface`, then TetGen's Steiner points.
// Deterministic: the same input gives the same mesh.
//
// TetGen runs in a child process (fork): Debian's TetGen 1.5.0 crashes its
// caller when it gives up on an input, and it prints to stdout. So the call
// is safe from any thread, never prints, and a failure (self-intersecting
// input, features too small for TetGen's tolerance, ...) becomes a MeshError
// naming `name` with TetGen's own explanation, its point numbers translated
// to 1-based vertex numbers of `surface`. Also MeshError for an empty surface
// and for options out of range (quality in (0, MIN_QUALITY), negative volume).
TetMesh tetrahedralize(const SurfaceMesh& surface, const TetgenOptions& options, const std::string& name,
                       const std::vector<Vec3>& holes = {});

}  // namespace fsicut::mesh
