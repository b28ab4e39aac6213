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
//   - Storage: F_p - I at the NODES of the material grid (MaterialShape::grid,
//     the solid's world grid at t = 0), read at a Gauss point through its
//     x_bar by trilinear interpolation and scaled to det = 1. Storing F_p - I
//     keeps an untouched region exactly I (interpolated zeros are zeros), so
//     a solid that never yields steps bit for bit as an elastic one.
//   - Write-back: after line 20 of the step (u^{n+1} advected), every Gauss
//     point g of the solid (theta_g > 0) computes its new F_p; the CHANGE
//     dF_g = F_p,new - F_p,old is spread to the 8 material nodes around x_bar_g
//     by the trilinear weights w times theta_g, and each node adds
//     sum(w theta dF) / sum(w theta) over all points around it (those that did
//     not flow count with dF = 0), then is scaled back to det F_p = 1. Only
//     the change is spread (as FLIP does with velocities), so the stored field
//     is not smoothed again every step; nodes no point reaches keep theirs.
//
// In the force and stiffness (elasticity.hpp) F_p acts as a new rest shape of
// each Gauss point: with Xbar the material Jacobian of deformation.hpp,
// F_e = X (F_p Xbar)^-1, so the point's gradients become (F_p Xbar)^-T dN/dxi
// and P, dP those of Psi(F_e); the point's volume stays |det Xbar| / 8
// (det F_p = 1).
#include "lib/eulerian/material_shape.hpp"

namespace fsicut::eulerian {

struct PlasticSettings {
  Real yield = 0;  // deviatoric Hencky strain |e| where flow begins (dimensionless, >= 0)
  Real flow = 1;   // share of the excess over `yield` that flows per step, in (0, 1]
};

// F_p of one solid: settings and F_p - I at the nodes of its material grid.
struct PlasticStrain {
  PlasticSettings settings;
  grid::MacGrid grid;                 // MaterialShape::grid
  grid::Array3<Mat3> excess;          // F_p - I, size grid.node_shape() (dimensionless)
};

// F_p = I everywhere on `shape`'s grid.
PlasticStrain make_plastic_strain(const MaterialShape& shape, const PlasticSettings& settings);

// F_p at material point x_bar [m]: trilinear in F_p - I (clamped to the
// grid as grid::interpolate), plus I, scaled to det = 1. Exactly I where the
// surrounding nodes hold I.
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

// max of |F_p - I| (Frobenius; dimensionless) over the material nodes inside
// `shape` (material distance < 0). Why not all: the nodes just outside the
// surface only carry values for the Gauss points that straddle it.
Real max_plastic_strain(const PlasticStrain& plastic, const MaterialShape& shape);

}  // namespace fsicut::eulerian
