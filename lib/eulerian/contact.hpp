#pragma once
// Repulsion and friction between the FLIP particles of different Eulerian
// solids (Teng, Levin & Kim 2016, section 4.6, Eqs. 14-15; Algorithm 1 lines
// 14-15, after every solid's flip_update (line 13) and before any solid's
// rasterize (line 18), see particles.hpp).
//
// For a pair of particles i, j of different solids closer than the contact
// distance h, with
//   n    = (x_i - x_j) / |x_i - x_j|      the contact normal, from j to i
//   d    = h - |x_i - x_j| > 0             the overlap [m]
//   v_N  = (v_i - v_j) . n                 relative normal velocity (< 0 approaching) [m/s]
//   m    = m_i m_j / (m_i + m_j)           the pair's reduced mass [kg]
// the normal impulse on i (and its opposite on j) is r n with
//   r = min(dt k d, m (0.1 d / dt - v_N))                                (Eq. 14)
// applied only when r > 0: a spring impulse dt k d, capped so the pair
// separates no faster than 0.1 d per step (Bridson et al. 2002). The relative
// normal velocity changes by dv_N = r / m. Friction then scales the relative
// tangential velocity v_T^pre = (v_i - v_j) - v_N n as
//   v_T = max(1 - mu dv_N / |v_T^pre|, 0) v_T^pre                         (Eq. 15)
// through the opposite impulses +-m (v_T - v_T^pre): Coulomb's law, the
// tangential change at most mu times the normal one, and it stops the sliding
// (stick) but never reverses it.
//
// What is the paper's and what is ours:
//  - Eqs. 14-15, the 0.1 cap, stiffness k and friction mu (the paper's Table 1:
//    k = 2000..10000, mu = 0.2..0.5) are the paper's.
//  - The paper tests each particle of solid i against solid j's material
//    distance field and surface normal and changes only the particle's
//    velocity. Ours is particle against particle of the other solid (d and n
//    from the pair, no surface mesh needed) with equal and opposite impulses
//    and the reduced mass in place of the particle mass, so every pair
//    conserves linear momentum exactly. Particles sit up to a quarter cell
//    inside the surface (8 per cell), so h = dx starts repulsion when two
//    surfaces come within about half a cell.
//  - Pairs are found by binning the particles into cubes of edge h (a hash of
//    the cube index): each particle meets only the 27 cubes around its own,
//    O(n) for a bounded number of particles per cube. Pairs are resolved one
//    after another (Gauss-Seidel), in the order of the solids and their
//    particles, so the result is deterministic.
//
// Units: k [N/m] (an impulse dt k d [N s]), mu dimensionless, h [m], dt [s].
#include <vector>

#include "lib/eulerian/particles.hpp"

namespace fsicut::eulerian {

// Scene keys `solids/*/contact` {stiffness, friction}.
struct ContactSettings {
  Real stiffness = 0;  // k [N/m]; 0 turns repulsion (and so friction) off
  Real friction = 0;   // mu
  Real distance = 0;   // h [m]; the paper's "typically the grid resolution", dx
};

struct ContactReport {
  Index pairs = 0;          // pairs within h
  Index impulses = 0;       // pairs that received an impulse (r > 0)
  Real max_overlap = 0;     // max d [m]
};

// Lines 14-15 for all solids at once: changes the velocities (never the
// positions) of the particles of `solids` (one Particles per solid; particles
// of the same solid never interact) over a step of dt [s].
ContactReport resolve_contacts(const std::vector<Particles*>& solids, Real dt, const ContactSettings& settings);

}  // namespace fsicut::eulerian
