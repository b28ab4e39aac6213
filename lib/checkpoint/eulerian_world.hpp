#pragma once
// The checkpoint codec of the Eulerian world (eulerian/world.hpp): its part of
// section EULR (format.hpp). The section holds the world, then what the
// Eulerian simulator keeps beside it (its surfaces and frame tally, written by
// sim/eulerian/snapshot.cpp), then, only when some solid is plastic, the
// world's plastic strains: put/get below and put/get_plastic after the
// simulator's part. get restores into a world built from the scene and throws
// Error(data) "<file> (section EULR): does not fit this scene: ..." when the
// stored one is another (solid count, smoke, grid).
//
// What is stored, member by member. A member added to one of these structs is
// state (written and read here) or derived (rebuilt from the scene);
// tests/checkpoint/test_eulerian_world.cpp checks the struct sizes so the
// question cannot be missed.
//   eulerian::World          velocity, pressure (the warm start of Eq. 12, any
//                            size): stored. solids, smoke: below. grid: built
//                            from the scene. time: set by the simulator before
//                            every step from its clock.
//   eulerian::EulerianSolid  u, v, valid, pressure (its own warm start, any
//                            size): stored. plastic: its samples (F_p) stored
//                            in the trailing block; its settings, grid and
//                            `first` built from the scene. grid, shape, lame,
//                            density, damping, material_volume,
//                            contact_stiffness, contact_friction: built from
//                            the scene.
//   eulerian::Smoke          density, velocity: stored. fluid_density,
//                            buoyancy, vorticity_confinement, sources: built
//                            from the scene.
#include <string>
#include <vector>

#include "lib/checkpoint/bytes.hpp"
#include "lib/eulerian/world.hpp"

namespace fsicut::checkpoint {

// doubles velocity, doubles pressure; u32 #solids, per solid doubles u,
// doubles v, bytes valid, doubles pressure; u8 smoke, then doubles density,
// doubles velocity.
void put(ByteWriter& w, const eulerian::World& world);
// `names`: the solids' names, for messages (one per world.solids).
void get(ByteReader& r, eulerian::World& world, const std::vector<std::string>& names);

// Only when some solid is plastic (nothing otherwise: an elastic world's
// section keeps its bytes): u32 #solids, per solid doubles F_p, 9 per sample
// of eulerian/plasticity.hpp (column-major), none for an elastic solid.
void put_plastic(ByteWriter& w, const eulerian::World& world);
// Reads that block if the section has bytes left (none left: no solid was
// plastic); each solid's sample count must be the scene's.
void get_plastic(ByteReader& r, eulerian::World& world, const std::vector<std::string>& names);

}  // namespace fsicut::checkpoint
