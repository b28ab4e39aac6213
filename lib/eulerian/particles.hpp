#pragma once
// The FLIP particles of one Eulerian solid (Teng, Levin & Kim 2016, section
// 4.6 and Algorithm 1 lines 13 and 18): material samples that carry the
// solid's velocity through a step, so that advection of the velocity does not
// go through the grid's semi-Lagrangian interpolation (void_step.hpp measures
// what that loses on a spinning ball).
//
// How the world step calls them, per solid l, after the projection (line 11):
//   line 13     flip_update(P_l, grid, v_l^n, v_l^{n+1}, ratio)   grid -> particles
//   lines 14-15 resolve_contacts({P_1, ..., P_L}, dt, settings)     (contact.hpp),
//               once for all solids together
//   line 18     t = rasterize(P_l, grid); v_l^{n+1} = t.velocity   particles -> grid
//               on the nodes with t.mass > 0, then advect_particles(P_l, dt)
// v_l^n is the solid's velocity copy before the step's solve (what line 18
// rasterized at the end of the previous step, or what seed_particles sampled),
// v_l^{n+1} after it. The paper re-instantiates the particles every step
// ("we instantiate particles for each solid"); re-seeding (seed_particles from
// the solid's current u and v) and keeping them (advect_particles) both fit
// this interface.
//
// Units: positions [m], velocities [m/s], masses [kg]. Fields are NodeFields
// on the solid's grid (q1.hpp layout); transfers use the Q1 shape functions
// (trilinear), positions outside the grid clamped onto it as q1.hpp interpolate.
#include <cstdint>
#include <vector>

#include "lib/eulerian/void_step.hpp"

namespace fsicut::eulerian {

// Structure of arrays, one entry per particle, all of the same length.
struct Particles {
  std::vector<Vec3> position;  // world [m]
  std::vector<Vec3> velocity;  // [m/s]
  std::vector<Real> mass;      // [kg]
  Index size() const { return static_cast<Index>(position.size()); }
};

struct SeedSettings {
  // Particles per cell edge: per_axis^3 per cell. The paper uses 8-16 per
  // cell; 2 (8 per cell) is ours within that range.
  int per_axis = 2;
  // Each particle sits at the centre of its sub-cell (edge dx / per_axis)
  // moved by up to +-jitter/2 of the sub-cell edge per axis (0: a regular
  // lattice, 1: anywhere in the sub-cell). Ours.
  Real jitter = 0.5;
  std::uint64_t seed = 1;  // the jitter's generator (std::mt19937_64): same seed, same particles bit for bit
};

// Samples the material of `solid`: every sub-cell centre (jittered) x with
// material_distance(x - u(x)) < 0 gets a particle with velocity v(x) (both
// interpolated, q1.hpp) and mass density * sub-cell volume, so the masses sum
// to density times the sampled volume. Cells are visited in cell-index order;
// only cells with a valid corner (where u is defined) are sampled. jitter = 0
// draws no random numbers.
Particles seed_particles(const EulerianSolid& solid, const SeedSettings& settings = {});

// Line 13: the grid-to-particle update, a blend of FLIP and PIC,
//   v_p <- ratio * (v_p + I(v_new - v_old)) + (1 - ratio) * I(v_new),
// I the trilinear interpolation at the particle. ratio = 1 is pure FLIP (the
// particles keep everything the grid did not change), 0 pure PIC. The paper
// states no ratio; DEFAULT_FLIP_RATIO is ours (the common FLIP choice).
constexpr Real DEFAULT_FLIP_RATIO = 0.95;
void flip_update(Particles& particles, const grid::MacGrid& grid, const NodeField& v_old, const NodeField& v_new,
                 Real flip_ratio = DEFAULT_FLIP_RATIO);

// Line 18: the mass-weighted Q1 splat. mass_n = sum_p m_p N_n(x_p) [kg] and
// velocity_n = sum_p m_p N_n(x_p) v_p / mass_n [m/s] where mass_n > 0 (zero
// elsewhere). Since the N_n sum to 1, sum_n mass_n velocity_n = sum_p m_p v_p:
// momentum is conserved to round-off. A node's velocity is exactly an affine
// field's value there when the particles around it are placed symmetrically
// (their mass-weighted centre is the node), e.g. an unjittered lattice.
struct Rasterized {
  NodeField velocity;
  Vector mass;  // #nodes
};
Rasterized rasterize(const Particles& particles, const grid::MacGrid& grid);

// Moves every particle by dt * its velocity [s] (forward Euler).
void advect_particles(Particles& particles, Real dt);

// Sum of m_p v_p [kg m/s] and of 1/2 m_p |v_p|^2 [J].
Vec3 momentum(const Particles& particles);
Real kinetic_energy(const Particles& particles);

}  // namespace fsicut::eulerian
