#pragma once
// Particle density correction: moves marker particles out of the places where
// they have packed closer than they were seeded, into the under-filled interior
// and out through the free surface, so the liquid keeps its volume.
//
// Why: marker particles move with the trilinear interpolant of a velocity field
// that is divergence-free only per cell, so they drift together in some places
// and apart in others. The liquid is the half level of their smoothed volume
// fraction (levelset/liquid_sdf.hpp), so particles that pack closer make the
// liquid smaller: the shipped dam break lost 2-3 % of its volume in 3 s, a splash
// onto a torus 9 %.
//
// The method is the implicit density projection of Kugelstadt, Longva, Thuerey
// and Bender (2019, "Implicit density projection for volume conserving
// liquids"), on our cut-cell grid:
//   1. rho at every cell centre: the smoothed liquid fraction of the particles,
//      1 where they are as dense as seeded, read back from the liquid SDF of the
//      last stage 4, phi = (1/2 - rho) dx / W1(0) (the two differ only where the
//      SDF is the union of balls, spray where rho < 1/2); and its mean over the
//      liquid cells of each cell's 3 x 3 x 3 block (the seeding's jitter alone
//      spreads rho by +-6 % from cell to cell, the means by +-1.2 %).
//   2. What each liquid cell reads as seeded, ref: 1 deep in the liquid (no air
//      within 2 cells); nearer the air, where the kernel reaches the air and
//      rho is below 1 by nature, the colour kernel over the liquid's outline
//      (levelset/natural_fraction.hpp: within 0.6 % of seeded particles a cell
//      or more under the surface); none where a solid or thin wall is near
//      (that estimate does not count walls). The target divergence of a
//      displacement field d [m] per cell,
//        div d = rho - ref   (a region whose volume grows by the factor
//                             rho / ref holds its particles as seeded),
//      over- and under-dense alike; where there is no ref, div d = mean - 1
//      where the block mean of rho exceeds 1, 0 elsewhere. All this only when
//      some cell's block mean of rho - ref (or, without ref, of rho - 1 above
//      1) is off by more than DENSITY_TRIGGER: else nothing is done, not even
//      a solve, and water as dense as seeded keeps its particles exactly where
//      they are. Once started, the whole deviation is corrected, not just the
//      part beyond the trigger (the liquid does not settle packed by the
//      trigger), cell by cell (particles do not gather in clumps finer than the
//      block means see). Why a reference near the surface: with the
//      correction acting only deep down, a plunging wave spread the particles
//      of the two cells under its surface 4 % apart and the shipped dam break's
//      measured volume rose 0.9 %; with the block mean's excess over 1 alone,
//      correcting the seeding noise's over-dense cells there but not its
//      under-dense ones pushed particles out through the surface (+1 % in 3 s).
//   3. d = -grad q with the pressure projection's matrix (fluid/pressure_projection.hpp
//      with dt / rho = 1): q = 0 at the free surface (ghost fluid), no flux through
//      solid faces (weighted by their open fractions), so the particles leave the
//      packed region for the under-filled one and the free surface, never
//      through a wall. Solved by PCG to DENSITY_SOLVE_TOLERANCE: the correction
//      repeats every DENSITY_INTERVAL of simulated time, so a rough q is enough.
//   4. Every particle moves by d at its position (trilinear from the faces its
//      liquid reaches past thin solids, as velocities are read), at most
//      DENSITY_MAX_SHIFT_CELLS cells, then clamped into the grid box.
// Only positions change: the face velocities (the liquid's momentum) are left
// alone.
// When: not every substep, but in the substeps that end at or past a multiple
// of DENSITY_INTERVAL seconds of simulated time counted from their start,
// i.e. whose interval (t, t + dt] holds one (density_correction_due): 120
// times a simulated second, every substep when the substeps are longer.
// Why: run every substep, the correction cost 27 % of the stepping of the
// paper dam break at 100^3 after the impact (22 substeps a frame, the solve
// and shift running in nearly all of them; docs/performance.md), while the
// particles pack by about 1 % of the volume a second (the shipped dam break
// without the correction lost 3 % in its first second).
// Why not rarer: the volume validations' margins. The shipped dam break's
// measured volume (scenes/dam_break.json, 3 s, bound 0.5 %) peaked at +0.30 %
// corrected every substep (at 2 s); at 1 s, in the plunging wave, at +0.39 %
// every 1/120 s, +0.40 % every 1/90 s, +0.62 % every 1/60 s (+0.73 % with
// twice the shift's cap). The gate dam break's (scenes/gate_dam_break.json,
// 2 s, bound 0.5 %) at 0.4 s: -0.49 % every substep, -0.48 % every 1/120 s,
// -0.51 % every 1/90 s. The rule reads the simulated time alone, which a
// checkpoint holds: a resumed run corrects in the same substeps as the run
// it continues.
#include "lib/core/types.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::fluid {

// The deviation of the block mean of rho from 1 that starts a correction. Why
// not 0: freshly seeded particles leave it within 0.986 .. 1.012 (measured,
// tests/fluid/test_density_correction.cpp); water at rest must not be stirred
// by its own seeding noise.
inline constexpr Real DENSITY_TRIGGER = 0.02;
// The simulated time between two corrections [s] (see "When" above).
inline constexpr Real DENSITY_INTERVAL = 1.0 / 120;
// Whether the substep from `time` to `time + dt` [s] corrects: (time, time + dt]
// holds a multiple of DENSITY_INTERVAL, or dt is at least that long.
bool density_correction_due(Real time, Real dt);
// Relative residual of the displacement potential's solve, and its iteration cap.
inline constexpr Real DENSITY_SOLVE_TOLERANCE = 1e-2;
inline constexpr int DENSITY_MAX_ITERATIONS = 30;
// The largest shift of a particle per correction [cells]. Why: the linear model
// of step 2 holds for small displacements; a strongly packed spot is spread over
// a few substeps instead of being thrown apart in one.
inline constexpr Real DENSITY_MAX_SHIFT_CELLS = 0.25;

struct DensityCorrectionReport {
  Index over_dense = 0;   // cells with rho > 1 + DENSITY_TRIGGER
  Index under_dense = 0;  // deep cells with rho < 1 - DENSITY_TRIGGER
  Index moved = 0;        // particles shifted
  Real max_shift = 0;     // [m]
  linsolve::Report solve; // nothing_to_solve() when no cell qualified
};

// Steps 1-4 above on `liquid` (its liquid_phi, solid_phi, fractions, reach and
// particles as stage 5 leaves them). Uses liquid.scratch as workspace; the face
// velocities are not touched. A solve that stops above its tolerance is not an
// error (the shift is then rougher; the report says so). Parallel, and the
// result does not depend on the thread count beyond round-off.
DensityCorrectionReport correct_density(Liquid& liquid);

}  // namespace fsicut::fluid
