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

// The lowest tet shape quality (check.hpp tet_quality, 1 = regular) accepted
// from TetGen. A tet at 1e-3 is already a million times stiffer than a regular
// one of its size; TetGen's flat leftovers are at 1e-15.
constexpr Real MIN_TET_QUALITY = 1e-3;

// Tetrahedralizes the volume enclosed by `surface` with TetGen: switches
// "pzA" + "Y" (keep the input triangles), or, when options.max_tet_volume > 0,
// "a<max_tet_volume>" instead of "Y"; plus "q<quality>" when quality > 0.
// TetGen's final optimization (flips, smoothing) is on in both cases.
//
// `surface` must be closed and outward (run check_closed_surface() first). It
// may have several components: a component inside another with inward-facing
// triangles bounds a cavity.
//
// Surface: without a volume bound the input triangles are kept as they are
// (TetGen adds Steiner points inside only) and the result's boundary is the
// input surface. With a bound, TetGen may split surface triangles (it could
// not honour the bound next to large ones otherwise); its optimization can
// push a few tets up to ~25% past the bound, and those are split at their
// centroid. Either way, new surface points lie on the input triangles, so the
// volume equals enclosed_volume(surface) up to round-off, and every tet is
// <= the bound.
//
// Shape: every tet has tet_quality >= MIN_TET_QUALITY, or MeshError naming
// where the worst one is (TetGen's radius-edge bound does not exclude slivers).
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
// vertices first, in their order in `surface`, then TetGen's Steiner points,
// then the centroids of split tets.
// Deterministic: the same input gives the same mesh.
//
// TetGen runs in a child process (fork): Debian's TetGen 1.5.0 crashes its
// caller when it gives up on an input, and it prints to stdout. So the call
// is safe from any thread, never prints, and a failure (self-intersecting
// input, features too small for TetGen's tolerance, ...) becomes a MeshError
// naming `name` with TetGen's own explanation, its point numbers translated
// to 1-based vertex numbers of `surface`. Also MeshError for an empty surface
// and for options out of range (quality in (0, MIN_QUALITY), negative volume).
// The child is killed when fsicut dies (PR_SET_PDEATHSIG) and when it runs
// longer than options.time_limit_seconds (then MeshError saying so).
TetMesh tetrahedralize(const SurfaceMesh& surface, const TetgenOptions& options, const std::string& name,
                       const std::vector<Vec3>& holes = {});

}  // namespace fsicut::mesh
