#pragma once
// The checkpoint codecs of the liquid (section LIQD after its presence flag,
// and section PIEC; format.hpp has the layouts). get restores into a liquid
// built from the scene and throws Error(data) "<file> (section <tag>): does
// not fit this scene: ..." when the stored grid is another.
//
// What is stored, member by member. A member added to fluid::Liquid is state
// (written by put and read by get below) or derived (rebuilt by the scene's
// constructor or recomputed); tests/checkpoint/test_liquid.cpp checks the
// struct size so the question cannot be missed.
//   fluid::Liquid  particles, velocity, pressure, liquid_phi, static_phi,
//                  solid_phi, fractions, valid: stored. particle_radius,
//                  particle_volume: stored (and restored). grid, density,
//                  viscosity, gravity, solid, projection, extrapolation_layers,
//                  open: built from the scene. wall_inflow: not stored, set by the
//                  sources' stage of every substep before its projection
//                  reads it (sim/cutcell/flows.hpp). scratch: not stored, a workspace every
//                  stage overwrites before reading (fluid/velocity.cpp
//                  copy_into). reach: not stored, derived from the solids at
//                  stage 4 of every substep (sim/cutcell/solid_fields.cpp
//                  update_solid_fields) before anything reads it; split
//                  likewise. region_pressure: not stored, written by every
//                  projection and never read before it (a split cell's
//                  further regions start from the cell's stored pressure).
//                  pieces: stored in section PIEC by the put and get of
//                  PieceVelocities below (stage 2 of the next substep reads
//                  them with the split cells the restore derives again, which
//                  get checks them against).
#include "lib/checkpoint/bytes.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/fluid/pieces.hpp"

namespace fsicut::checkpoint {

// f64 particle radius, f64 particle volume, points particles, arrays: face
// velocities x, y, z, pressure, liquid_phi, static_phi, solid_phi, face
// fractions x, y, z, valid faces x, y, z.
void put(ByteWriter& w, const fluid::Liquid& liquid);
void get(ByteReader& r, fluid::Liquid& liquid);

// Section PIEC: doubles x 3, per axis runs of (face index, #pieces, that
// many velocities [m/s]), faces in increasing index order.
void put(ByteWriter& w, const fluid::PieceVelocities& pieces);
// Into `pieces` (cleared first): each stored face must be split into as many
// pieces in `split` (the split cells derived again from the restored solids).
void get(ByteReader& r, fluid::PieceVelocities& pieces, const cutcell::SplitCells& split);

}  // namespace fsicut::checkpoint
