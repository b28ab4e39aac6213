#pragma once
// The moving solids seen by the liquid's grid (Zarifi & Batty 2017, Section 7):
// each substep's stage 4 moves every body's triangle surface to its nodes,
// samples its signed distance at the grid nodes, unites it with the static
// obstacles into the liquid's solid SDF and face fractions (closed across
// solids thinner than a cell; with static obstacles alone, cells such a solid
// divides are split instead, cutcell/split_cells.hpp), and clips the surfaces against the cells into
// the patches Q of (10). Stage 6 reads the solids' surface velocity from them.
#include <vector>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/cutcell/surface_patches.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::sim {

class CutCellSimulator;

// Why a band: the liquid reads a solid's SDF only near its surface (face
// fractions, the liquid SDF's extension into the solid, pushing particles out,
// the velocity constraint), all within a few cells. Exact distances farther
// away would cost a full-mesh search per node.
constexpr Real SOLID_BAND_CELLS = 5;

// The solids' triangle surfaces: `meshes` holds one entry per body (its
// boundary at the current positions), then one per static obstacle that has a
// surface (sim::obstacle_surfaces: boxes and obj meshes), which never
// moves. The thin-solid stages and the particle paths read all of them; the
// patches and the coupling only the bodies'.
struct SolidSurfaces {
  std::vector<levelset::MeshDistance> meshes;                // bodies, then obstacles
  std::vector<std::vector<cutcell::SurfacePatch>> patches;   // clipped boundary triangles
  grid::Array3<Real> phi;                                    // workspace: one body's node SDF
  cutcell::FaceFractions static_fractions;  // open fractions of the walls and static obstacles alone; empty: not yet
  bool fixed = false;  // no bodies and the static fields computed: stage 4 only updates particles
};

// The bodies' surfaces at their current positions (no patches yet), then `obstacles`.
SolidSurfaces make_surfaces(const std::vector<solid::Body>& bodies,
                            std::vector<levelset::MeshDistance> obstacles = {});

// Stage 4 for the solids (needs state.liquid): moves the surfaces to the
// bodies' positions; liquid.solid_phi = min(static_phi, each body's SDF clamped
// to +-SOLID_BAND_CELLS dx); face fractions, closed across thin solids;
// patches; the neighbour reach. Without bodies (static obstacles only) all of it
// is computed once, and later calls only update the particles' reach.
void update_solid_fields(CutCellSimulator& state);

// Stage 6: the velocity [m/s] at a point of the solid surface nearest to x
// (barycentric in the nearest boundary triangle of the nearest body within the
// band; zero elsewhere: static obstacles). Captures `state` by reference.
fluid::SolidVelocity solid_velocity(const CutCellSimulator& state);

}  // namespace fsicut::sim
