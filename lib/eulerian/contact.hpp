#pragma once
// Repulsion and friction between Eulerian solids (Teng, Levin & Kim 2016,
// section 4.6, Eqs. 14-15; Algorithm 1 lines 14-15): the FLIP particles of
// one solid against the material of another.
//
// A particle at x of solid i, mass m and velocity v_p, meets solid j through
// j's reference map and material distance (material_shape.hpp):
//   psi(x) = phi_j(x - u_j(x))          j's distance at the particle [m]
//   d      = h - (psi(x) - depth) > 0   the overlap, h the contact distance,
//                                       depth = -phi_i(x - u_i(x)) >= 0 the
//                                       particle's own depth below its surface
//   n      = grad psi / |grad psi|      the contact normal, out of j
//   v_N    = (v_p - v_j(x)) . n         relative normal velocity (< 0 approaching)
// and its velocity changes by r / m along n with
//   r = min(dt k d, m (0.1 d / dt - v_N))                                (Eq. 14)
// applied only when r > 0: a spring impulse dt k d, capped so the particle
// leaves no faster than 0.1 d per step (Bridson et al. 2002). Friction then
// scales the relative tangential velocity v_T^pre = (v_p - v_j) - v_N n as
//   v_T = max(1 - mu dv_N / |v_T^pre|, 0) v_T^pre,   dv_N = r / m        (Eq. 15)
// Coulomb's law: the tangential change is at most mu times the normal one,
// and it stops the sliding (stick) but never reverses it.
//
// The paper's: Eqs. 14-15, the 0.1 cap, the test of each particle against the
// other solid's distance field, stiffness k and friction mu (its Table 1:
// k = 2000..10000 N/m, mu = 0.2..0.5) and h "typically the grid resolution".
// Ours: the overlap counts from the particle's own surface, not from the
// particle (its depth subtracted), so contact starts when the two surfaces
// come within h wherever the particle lattice falls: the particles of a
// 2 x 2 x 2 lattice sit up to half a cell deep, and measured from them h = dx
// never engaged in head-on collisions of two balls, which the one velocity
// field already keeps about a cell apart. So that this reaches only the
// surface layer, as the paper's does, a particle deeper than h in its own
// solid is not tested, and d counts at most h (materials that overlap, as
// solids sharing one velocity field may, are pushed no harder than touching
// ones): without the two, every particle of an overlap down to 3 cells deep
// was thrown apart at 0.1 (h + overlap) / dt every step it lasted, and five
// toys in contact (the paper's Party) gained energy until they blew up,
// at k = 1e4 and 2e3 N/m alike (the cap, not k, set the push). The normal is the gradient of psi by central differences of a
// quarter cell (the paper takes the nearest surface triangle's normal and
// names this gradient as the fallback [Levin et al. 2011]); a particle is
// tested only where all 8 corners of its cell carry j's u (inside j's band,
// which reaches 3 cells past j's surface, further than h). Each solid's
// particles are tested against every other solid, so both sides of a contact
// are pushed; the impulses are each particle's own, so momentum is conserved
// only as far as the two sides' pushes balance.
//
// Units: k [N/m] (an impulse dt k d [N s]), mu dimensionless, h [m], dt [s],
// masses [kg], velocities [m/s].
#include "lib/eulerian/particles.hpp"

namespace fsicut::eulerian {

// Scene keys `solids/*/contact` {stiffness, friction}.
struct ContactSettings {
  Real stiffness = 0;  // k [N/m]; 0 turns repulsion (and so friction) off
  Real friction = 0;   // mu
  Real distance = 0;   // h [m]; the paper's "typically the grid resolution", dx
};

struct ContactReport {
  Index contacts = 0;    // particles within h of another solid
  Index impulses = 0;    // of those, the ones that received an impulse (r > 0)
  Real max_overlap = 0;  // max d [m]
};

// Eqs. 14-15 for one particle of mass [kg] whose velocity relative to the
// other solid is `relative`, overlapping it by `overlap` [m] along the unit
// `normal` (out of the other solid): the particle's velocity change [m/s].
// Zero when r <= 0.
Vec3 contact_velocity_change(const Vec3& relative, const Vec3& normal, Real overlap, Real mass, Real dt,
                             const ContactSettings& settings);

// Lines 14-15 for the particles of solid `own` against solid `other`, whose
// velocity is `other_velocity` (a NodeField on other.grid, read where
// other.valid): adds each particle's velocity change, never moves one.
void push_away(Particles& particles, const EulerianSolid& own, const EulerianSolid& other,
               const NodeField& other_velocity, Real dt, const ContactSettings& settings, ContactReport& report);

}  // namespace fsicut::eulerian
