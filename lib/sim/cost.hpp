#pragma once
// The wall time one substep is expected to take, from counts of unknowns and
// a cost model measured on fsicut runs, so that --validate and a run's start
// can say when a scene is slow, and the frame loop knows when a substep is
// long enough to be worth abandoning on a stop request (run.cpp).
//
// seconds = CELL_SECONDS x grid cells                     (every grid stage
//                                                          and the liquid solve)
//         + per full solid: DOF_SECONDS(element) x free dofs^1.5
//                                                         (factoring its block of
//                                                          the coupled solve)
//         + per reduced solid: MODE_SECONDS x (modes + 6)^3
// Measured on 2 cores: the default dam break (24,576 cells) 0.011 s per
// substep, 4.5e-7 s per cell; a quadratic sphere of 17,348 nodes (52,044
// dofs) on a 16^3 grid about 50 s per substep, and one of 4,072 nodes 34 s
// on a machine running 5 times slower than idle (about 7 s idle), which
// fits dofs^1.5 (sparse Cholesky of a 3-D mesh grows between n^(4/3) fill and
// n^2 work); a reduced body of 200 modes about 10 ms. Linear elements: a box
// of 20^3 cells (9,261 nodes, 27,783 dofs) half under water on a 16^3 grid,
// 27.8 s per substep on 2 idle cores (the products of (33) and the
// factorization). A tetrahedralized box has more tets per node than the
// sphere, so per dof the linear coefficient comes out above the quadratic
// one. It is a scale, within a factor of about 3 of what an idle machine
// takes; loaded machines take longer.
//
// The eulerian scheme (sim/eulerian/simulator.hpp) has no solid dofs: every stage runs
// over the grid's nodes and cells, so its estimate is EULERIAN_CELL_SECONDS x
// grid cells. Measured on 2 cores: eulerian_ball (38,912 cells) 1.5e-5 s per
// cell and substep, eulerian_cheb (25,920 cells) 2.0e-5, a five-toy party
// (64,000 cells, five solids) 1.6e-5, the Ball benchmark (307,200 cells)
// 8.9e-6.
#include <string>
#include <vector>

#include "lib/scene/scene.hpp"

namespace fsicut::sim {

inline constexpr double CELL_SECONDS = 4.5e-7;
inline constexpr double EULERIAN_CELL_SECONDS = 1.5e-5;
inline constexpr double QUADRATIC_DOF_SECONDS = 4.2e-6;
inline constexpr double LINEAR_DOF_SECONDS = 6.0e-6;
inline constexpr double MODE_SECONDS = 1.25e-9;
// Past this estimate [s] --validate and the run's start warn: a stop request
// (a farm's grace period is often 30-60 s) and every progress line wait long.
inline constexpr double SLOW_SUBSTEP_SECONDS = 30;

struct SubstepCostTerm {
  std::string what;     // "grid", "solid \"<name>\""
  std::string pointer;  // the scene key that drives it
  std::string count;    // what it counts, e.g. "262144 cells", "52044 dofs (quadratic)"
  double seconds = 0;
};

struct SubstepCost {
  std::vector<SubstepCostTerm> terms;
  double seconds = 0;  // their sum [s]
};

// The grid's term at `per_cell` seconds a cell (CELL_SECONDS or
// EULERIAN_CELL_SECONDS); each simulator adds its own terms
// (Simulator::estimate_substep).
SubstepCostTerm grid_cost(const scene::Scene& scene, double per_cell);

// The sum of the terms, in order.
SubstepCost total(std::vector<SubstepCostTerm> terms);

// "time estimate: about 12 s per substep" and one line per term, for --validate.
std::string describe(const SubstepCost& cost);

// One warning per term above SLOW_SUBSTEP_SECONDS naming the solid, its
// estimate and the remedies; empty when none.
std::vector<std::string> slow_substep_warnings(const SubstepCost& cost);

}  // namespace fsicut::sim
