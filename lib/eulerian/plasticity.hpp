#pragma once
// Plastic flow of an Eulerian solid: the multiplicative model of Teng, Levin
// & Kim 2016 section 4 ("we use a multiplicative plasticity model [Bargteil
// et al. 2007]. The plastic deformation gradients are stored in a material
// space grid, initially set to identity, and updated according to a yield
// condition").
//
// The paper's:
//   F = F_e F_p           F from the reference map (deformation.hpp), F_p the
//                         plastic part, F_e the elastic part the material
//                         model sees: Psi(F_e) (corotated.hpp)
//   F_p on a material-space grid, identity at the start, updated by a yield
//   condition once per step.
// Ours (the paper names the model only):
//   - det F_p = 1: plastic flow changes the shape, never the volume, so the
//     incompressible solid's volume stays the reference map's.
//   - The yield condition, Bargteil et al. 2007 with a strain measure: with
//     F_e = U diag(s) V^T (signed SVD, corotated.hpp) and the deviatoric
//     Hencky strain e = ln s - (1/3) sum_i ln s_i (ln S_hat, S_hat = S /
//     det(S)^(1/3) Bargteil's deviatoric stretch), the point flows when
//     |e| > yield:
//       gamma = min(flow (|e| - yield) / |e|, 1)
//       F_p  <- V S_hat^gamma V^T F_p = V diag(exp(gamma e)) V^T F_p
//     which leaves F_e = F F_p^-1 the deviatoric strain (1 - gamma) e: with
//     flow = 1 exactly on the yield surface |e| = yield (perfect
//     plasticity), with flow < 1 that fraction of the excess per step (a
//     viscoplastic rate that depends on dt). Bargteil measures |e| by the
//     deviatoric stress; the Hencky strain makes the return exact and needs
//     no material constant. Points with det F_e <= 0 (inverted) do not flow.
//     No hardening.
//   - Storage: F_p itself at the Gauss points of the material grid's cells
//     (MaterialShape::grid, the solid's world grid at t = 0; sample g of cell
//     c sits at x_bar = c's min corner + dx gauss_point(g)), kept for the
//     cells near the solid only. A point of the world grid reads the sample
//     nearest its x_bar, piecewise constant: that of the octant of x_bar's
//     material cell (per axis the samples 1/2 -+ 1/(2 sqrt 3) of adjacent
//     cells are split half way at the cell's mid-plane and at its faces).
//     Where the solid has not moved (x_bar = x) world point g of cell c reads
//     exactly sample g of cell c. Nothing interpolates F_p, so an untouched
//     sample is exactly I and a solid that never yields steps bit for bit
//     as an elastic one.
//   - Write-back: after line 20 of the step (u^{n+1} advected), every Gauss
//     point p of the solid (theta_p > 0) computes its new F_p from the sample
//     it reads; each sample moves by the theta-weighted average of the
//     changes F_p,new - F_p,old of the points that read it (those that did
//     not flow count with no change), then is scaled back to det F_p = 1;
//     samples no point reads keep theirs until one does, and the first
//     update that reads one returns its point to the yield surface (a region
//     the world stretches is read at fewer points than it holds samples; and
//     the Gauss lattice is not uniform: moved by 3/4 cell along an axis, a
//     solid's points read half its samples twice and the rest not at all).
//     A sample read by one point lands on exactly that point's returned F_p
//     (up to round-off), so once the solid stops, the next update finds the
//     point on the yield surface and F_p stops; a sample shared by several
//     points (material compressed in the world) settles where their changes
//     cancel. Why not the nodes of the material grid with trilinear
//     reads and weights (this header's first version): a point's change
//     spread over 8 nodes shared with 64 points never came back as the
//     value it returned, so points past the yield flowed again every step,
//     and the nodes they reach with small weights drifted: a plastic ball
//     resting against a wall (tests/eulerian/test_plasticity.cpp) went on
//     moving its largest |F_p - I| (0.37) by 0.019 in 0.5 s, where these
//     samples hold it to the bit.
//
// In the force and stiffness (elasticity.hpp) F_p acts as a new rest shape of
// each Gauss point: with Xbar the material Jacobian of deformation.hpp,
// F_e = X (F_p Xbar)^-1, so the point's gradients become (F_p Xbar)^-T dN/dxi
// and P, dP those of Psi(F_e); the point's volume stays |det Xbar| / 8
// (det F_p = 1).
#include <vector>

#include "lib/eulerian/material_shape.hpp"

namespace fsicut::eulerian {

struct PlasticSettings {
  Real yield = 0;  // deviatoric Hencky strain |e| where flow begins (dimensionless, >= 0)
  Real flow = 1;   // share of the excess over `yield` that flows per step, in (0, 1]
};

// F_p of one solid: settings and F_p at the Gauss points of the cells of its
// material grid near the solid.
struct PlasticStrain {
  PlasticSettings settings;
  grid::MacGrid grid;           // MaterialShape::grid
  grid::Array3<Index> first;    // #cells of `grid`: index in `samples` of the cell's sample 0, or NO_SAMPLES
  std::vector<Mat3> samples;    // F_p (dimensionless), GAUSS_POINTS per kept cell in gauss_point order
};

// PlasticStrain::first of a cell with no samples (F_p = I there).
constexpr Index NO_SAMPLES = -1;

// F_p = I at the Gauss points of the material cells whose centre lies
// within 2 cells of the solid (`shape`'s material distance).
PlasticStrain make_plastic_strain(const MaterialShape& shape, const PlasticSettings& settings);

// The index in PlasticStrain::samples of the sample a point at material
// position x_bar [m] reads (x_bar clamped onto the grid, as q1.hpp locate),
// or NO_SAMPLES.
Index plastic_sample(const PlasticStrain& plastic, const Vec3& x_bar);

// F_p at material point x_bar [m]: its sample's (det F_p = 1), exactly I
// where no sample is kept.
Mat3 plastic_deformation(const PlasticStrain& plastic, const Vec3& x_bar);

// |e| of the header for stretches s (all > 0).
Real deviatoric_strain(const Vec3& s);

// The yield condition at one point: the factor dF_p = V diag(exp(gamma e)) V^T
// of the header, F_p <- dF_p F_p, for elastic part F_e; exactly I when
// |e| <= yield or det F_e <= 0.
Mat3 plastic_flow(const Mat3& elastic, const PlasticSettings& settings);

// The write-back of the header for a solid with displacement u [m] on `grid`
// (valid: #nodes, where u is defined) and material shape `shape`.
void update_plastic_strain(PlasticStrain& plastic, const grid::MacGrid& grid, const NodeField& u,
                           const std::vector<char>& valid, const MaterialShape& shape);

// max of |F_p - I| (Frobenius; dimensionless) over the samples inside
// `shape` (material distance < 0). Why not all: the samples just outside the
// surface are read only by the Gauss points that straddle it.
Real max_plastic_strain(const PlasticStrain& plastic, const MaterialShape& shape);

}  // namespace fsicut::eulerian
