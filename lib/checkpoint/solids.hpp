#pragma once
// The checkpoint codecs of the Lagrangian solids (section SOLD, and REDU's
// per-body part; format.hpp has the layouts). get restores into a body built
// from the scene and throws Error(data) "<file> (section <tag>): does not fit
// this scene: ..." when the stored one is another (name, node or mode count).
//
// What is stored, member by member. A member added to one of these structs is
// state (written by put and read by get below) or derived (rebuilt by the
// scene's constructor or recomputed); tests/checkpoint/test_solids.cpp checks
// the struct sizes so the question cannot be missed.
//   solid::Body          x, v: stored. name: stored and checked. R: recomputed
//                        from x (update_rotations, as the step that produced x
//                        did). Everything else (mesh, material, mass, pinned,
//                        dofs, rest_volume, Dm_inv, K0, K0q, layouts) is built
//                        from the scene. velocity_solver: not stored, set up
//                        again on the first solve (its ordering depends on the
//                        layout only, so the resumed run's factors are the same).
//   solid::ReducedState  R, T, v, omega, q, qdot: stored (a reduced body's
//                        dynamics; its Body holds the reconstructed x and v).
//                        The basis (solid::ReducedBody) is built from the
//                        scene (deterministic: same scene, same basis); the
//                        mode count is checked against it.
#include <string>
#include <vector>

#include "lib/checkpoint/bytes.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::checkpoint {

// str name, points x, points v.
void put(ByteWriter& w, const solid::Body& body);
void get(ByteReader& r, solid::Body& body);

// Section SOLD: u32 #bodies, then each body. get checks the count.
void put(ByteWriter& w, const std::vector<solid::Body>& bodies);
void get(ByteReader& r, std::vector<solid::Body>& bodies);

// One record of section REDU: str name (of its Body), f64 R (9,
// column-major), f64 T, v, omega (3 each), u32 r, f64 q (r), f64 qdot (r).
// get checks the name against `name` and r against the body's basis.
void put(ByteWriter& w, const std::string& name, const solid::ReducedState& state);
void get(ByteReader& r, solid::ReducedBody& body, const std::string& name);

}  // namespace fsicut::checkpoint
