// The measurements behind scripts/paper-tables (Zarifi & Batty 2017, Table 2
// and the stability assessment of Sec. 8). Prints one JSON object.
//
//   fsicut_bench_paper matrices SCENE STEPS [--cond-every K] [--set /pointer=value ...]
//     Runs STEPS substeps of the scene (CFL substeps, frame by frame) and, on
//     every substep's coupled system, builds the indefinite matrix (19) and the
//     SPD matrix (33), counts their nonzeros, times solve_indefinite
//     (BiCGSTAB + ILU) and solve_spd (incomplete-Cholesky PCG) from a zero
//     guess at the scene's tolerance, and on every K-th system (default 1)
//     estimates both condition numbers.
//
//   fsicut_bench_paper stability SCENE [--radius] [--max-strain S] [--set /pointer=value ...]
//     Runs the scene's frames (sim::advance_to, as fsicut) and reports whether
//     it completed, the worst tet distortion seen (smallest det F, largest
//     principal strain (solid::BodyStats::max_strain), largest node
//     displacement), the solids' centroid height after every frame and where
//     they ended up. An inverted tetrahedron ends the run as a failure (as
//     fsicut --strict). --max-strain: the first substep with a principal strain
//     above S (distortion the scene's loads cannot cause elastically) is
//     reported as "distorted_substep". --radius: on
//     every substep's coupled system, the spectral radius of the weak scheme's
//     amplification (coupling/amplification.hpp).
//
// Condition numbers: both matrices are symmetric, so the 2-norm condition
// number (MATLAB's cond, which the paper used) is max|lambda| / min|lambda|.
// max|lambda| comes from power iteration on A^2 (A^2 has no +-lambda pairs to
// stall it), min|lambda| from power iteration on A^-2 with a sparse LDL^T
// factorization (both matrices are quasi-definite or definite, so LDL^T exists
// without pivoting; SparseLU is the fallback). Both iterate until the Rayleigh
// quotient changes by less than COND_TOLERANCE.
// (19) is in SI units (fluid rows [m^3/s], solid rows [N]) while (33) is in
// the variables (p, v / alpha); the indefinite matrix is also reported in
// those variables, diag(1, alpha) (19) diag(1, alpha), the same system scaled
// the way (33) is, so the two condition numbers compare like with like.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>

#include "lib/core/error.hpp"
#include "lib/core/memory.hpp"
#include "lib/core/parallel.hpp"
#include "lib/coupling/amplification.hpp"
#include "lib/coupling/coupled_projection.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/stats.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/corotation.hpp"

namespace {

using fsicut::Real;
using fsicut::coupling::CoupledSettings;
using fsicut::coupling::CoupledSystem;
using fsicut::linsolve::SparseMatrix;
using fsicut::linsolve::Vector;
using ColMatrix = Eigen::SparseMatrix<Real, Eigen::ColMajor, int>;

constexpr double COND_TOLERANCE = 1e-6;
constexpr int COND_MAX_ITERATIONS = 500;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

long nonzeros(const SparseMatrix& A) {
  long n = 0;
  for (int k = 0; k < A.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(A, k); it; ++it) n += it.value() != 0;
  return n;
}

// Power iteration for the largest eigenvalue of the SPD operator `apply`
// (a deterministic, non-special start vector).
template <class Apply>
double power(int n, const Apply& apply) {
  Vector x(n);
  for (int i = 0; i < n; ++i) x[i] = 1 + 0.5 * std::sin(0.7 * i);
  x.normalize();
  double lambda = 0;
  for (int it = 0; it < COND_MAX_ITERATIONS; ++it) {
    const Vector y = apply(x);
    const double next = x.dot(y);
    x = y / y.norm();
    if (std::abs(next - lambda) <= COND_TOLERANCE * std::abs(next)) return next;
    lambda = next;
  }
  return lambda;
}

template <class Solver>
double smallest(const SparseMatrix& A, Solver& solver) {
  const double inv2 = power(A.rows(), [&](const Vector& x) { return Vector(solver.solve(Vector(solver.solve(x)))); });
  return 1 / std::sqrt(inv2);
}

// log10 of max|lambda| / min|lambda| of symmetric A; NaN when A is singular.
double log10_condition(const SparseMatrix& A) {
  const double largest = std::sqrt(power(A.rows(), [&](const Vector& x) { return Vector(A * Vector(A * x)); }));
  const ColMatrix Ac = A;
  Eigen::SimplicialLDLT<ColMatrix> ldlt(Ac);
  if (ldlt.info() == Eigen::Success) return std::log10(largest / smallest(A, ldlt));
  Eigen::SparseLU<ColMatrix> lu;
  lu.compute(Ac);
  if (lu.info() != Eigen::Success) return std::nan("");
  return std::log10(largest / smallest(A, lu));
}

struct Parsed {
  std::string scene;
  std::vector<fsicut::scene::Override> overrides;
  std::vector<std::string> rest;
  int cond_every = 1;
  bool radius = false;  // stability: the weak amplification's spectral radius per substep
  double max_strain = std::numeric_limits<double>::infinity();  // stability: distortion to report
};

Parsed parse(int argc, char** argv) {
  Parsed p;
  p.scene = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) p.overrides.push_back(fsicut::scene::parse_override(argv[++i]));
    else if (a == "--cond-every" && i + 1 < argc) p.cond_every = std::max(1, std::atoi(argv[++i]));
    else if (a == "--radius") p.radius = true;
    else if (a == "--max-strain" && i + 1 < argc) p.max_strain = std::atof(argv[++i]);
    else p.rest.push_back(a);
  }
  return p;
}

CoupledSettings settings_of(const fsicut::scene::Scene& scene) {
  CoupledSettings s;
  s.sigma = scene.coupling.sigma;
  if (scene.coupling.alpha_auto) s.alpha.reset();
  else s.alpha = scene.coupling.alpha;
  s.tolerance = scene.coupling.tolerance;
  s.max_iterations = scene.coupling.max_iterations;
  // Table 2 compares the paper's solver, incomplete-Cholesky PCG, whatever the scene's coupling/preconditioner.
  s.preconditioner = fsicut::linsolve::Preconditioner::incomplete_cholesky;
  return s;
}

struct Sample {
  int cells = 0, dofs = 0;
  long nnz_indefinite = 0, nnz_spd = 0;
  double cond_indefinite = std::nan(""), cond_scaled = std::nan(""), cond_spd = std::nan("");
  double seconds_indefinite = 0, seconds_spd = 0;
  int iterations_indefinite = 0, iterations_spd = 0;
  double residual_indefinite = 0, residual_spd = 0;
  bool converged_indefinite = false, converged_spd = false;
};

void print_num(const char* key, double v, const char* sep = ", ") {
  if (std::isfinite(v)) std::printf("\"%s\": %.9g%s", key, v, sep);
  else std::printf("\"%s\": null%s", key, sep);
}

int matrices(const Parsed& p) {
  const int steps = p.rest.empty() ? 10 : std::atoi(p.rest[0].c_str());
  fsicut::sim::CutCellSimulator state = fsicut::sim::CutCellSimulator(fsicut::scene::load_scene(p.scene, p.overrides));
  const CoupledSettings settings = settings_of(state.scene);
  std::vector<Sample> samples;
  int systems = 0;
  const auto observe = [&](const CoupledSystem& sys) {
    Sample s;
    s.cells = sys.cells();
    s.dofs = sys.dofs();
    const SparseMatrix indefinite = fsicut::coupling::indefinite_matrix(sys);
    const fsicut::coupling::SpdSystem spd = fsicut::coupling::spd_system(sys, settings);
    s.nnz_indefinite = nonzeros(indefinite);
    s.nnz_spd = nonzeros(spd.matrix);
    if (systems++ % p.cond_every == 0) {
      s.cond_indefinite = log10_condition(indefinite);
      Vector d = Vector::Ones(sys.cells() + sys.dofs());
      d.tail(sys.dofs()).setConstant(spd.alpha);
      const SparseMatrix scaled = d.asDiagonal() * indefinite * d.asDiagonal();
      s.cond_scaled = log10_condition(scaled);
      s.cond_spd = log10_condition(spd.matrix);
    }
    double t = now();
    const auto a = fsicut::coupling::solve_indefinite(sys, settings, {});
    s.seconds_indefinite = now() - t;
    t = now();
    const auto b = fsicut::coupling::solve_spd(sys, settings, {});
    s.seconds_spd = now() - t;
    s.iterations_indefinite = a.report.iterations;
    s.iterations_spd = b.report.iterations;
    s.residual_indefinite = a.report.relative_residual;
    s.residual_spd = b.report.relative_residual;
    s.converged_indefinite = a.report.converged;
    s.converged_spd = b.report.converged;
    samples.push_back(s);
  };
  // Frame by frame, the substeps fsicut takes, until STEPS substeps have been observed.
  int done = 0;
  fsicut::sim::AdvanceHooks hooks;
  hooks.observe = observe;
  hooks.stop = [&](const fsicut::sim::Simulator&) { return ++done >= steps; };
  for (bool going = steps > 0; going;) {
    fsicut::sim::FrameStats tally;
    fsicut::StageTimes times;
    going = fsicut::sim::advance_frame(state, tally, times, hooks);
  }

  std::printf("{\"scene\": \"%s\", \"threads\": %d, \"steps\": %d, \"systems\": %zu, ", p.scene.c_str(),
              fsicut::threads(), steps, samples.size());
  const auto& g = state.scene.grid.resolution;
  std::printf("\"grid\": [%d, %d, %d], \"tolerance\": %g, ", g[0], g[1], g[2], settings.tolerance);
  long nodes = 0, tets = 0;
  for (const auto& b : state.solids) {
    nodes += b.num_nodes();
    tets += b.num_tets();
  }
  std::printf("\"nodes\": %ld, \"tets\": %ld, \"samples\": [", nodes, tets);
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    std::printf("%s{\"cells\": %d, \"dofs\": %d, \"nnz_indefinite\": %ld, \"nnz_spd\": %ld, ", i ? ", " : "",
                s.cells, s.dofs, s.nnz_indefinite, s.nnz_spd);
    print_num("log10_cond_indefinite", s.cond_indefinite);
    print_num("log10_cond_indefinite_scaled", s.cond_scaled);
    print_num("log10_cond_spd", s.cond_spd);
    std::printf("\"seconds_indefinite\": %.6g, \"seconds_spd\": %.6g, \"iterations_indefinite\": %d, "
                "\"iterations_spd\": %d, \"residual_indefinite\": %.3g, \"residual_spd\": %.3g, "
                "\"converged_indefinite\": %s, \"converged_spd\": %s}",
                s.seconds_indefinite, s.seconds_spd, s.iterations_indefinite, s.iterations_spd,
                s.residual_indefinite, s.residual_spd, s.converged_indefinite ? "true" : "false",
                s.converged_spd ? "true" : "false");
  }
  std::printf("]}\n");
  return 0;
}

struct Distortion {
  double min_volume_ratio = 1;  // smallest det F over tets and time (< 0: inverted)
  double max_strain = 0;        // largest principal strain (solid::BodyStats::max_strain)
};

void measure(const fsicut::solid::Body& body, Distortion& d) {
  for (fsicut::Index t = 0; t < body.num_tets(); ++t)
    d.min_volume_ratio = std::min(d.min_volume_ratio, fsicut::solid::deformation_gradient(body, t).determinant());
  d.max_strain = std::max(d.max_strain, fsicut::solid::stats(body).max_strain);
}

int stability(const Parsed& p) {
  fsicut::sim::CutCellSimulator state = fsicut::sim::CutCellSimulator(fsicut::scene::load_scene(p.scene, p.overrides));
  const bool radius = p.radius;
  std::vector<fsicut::Vec3> start;
  std::vector<fsicut::Points> rest;
  for (const auto& b : state.solids) {
    start.push_back(fsicut::solid::stats(b).centroid);
    rest.push_back(b.x);
  }
  std::vector<Distortion> worst(state.solids.size());
  std::vector<double> y_min(state.solids.size(), 1e300), y_max(state.solids.size(), -1e300);
  std::vector<double> max_displacement(state.solids.size(), 0);
  std::vector<std::vector<double>> frame_y(state.solids.size());
  std::vector<double> radii;  // per substep, with --radius
  std::string error;
  int substeps = 0, unconverged = 0, missed = 0, failed_substep = 0, distorted_substep = 0;
  fsicut::sim::AdvanceHooks hooks;
  if (radius)
    hooks.observe = [&](const CoupledSystem& sys) {
      radii.push_back(fsicut::coupling::weak_amplification(sys).spectral_radius);
    };
  hooks.after_substep = [&](const fsicut::sim::Simulator& simulator, const fsicut::sim::StepReport& r) {
    const auto& s = static_cast<const fsicut::sim::CutCellSimulator&>(simulator);
    unconverged += r.solve_count > 0 && !r.worst_solve.converged;
    missed += r.solve_count > 0 && !r.worst_solve.met_tolerance;
    ++substeps;
    for (size_t i = 0; i < s.solids.size(); ++i) {
      measure(s.solids[i], worst[i]);
      const double y = fsicut::solid::stats(s.solids[i]).centroid.y();
      y_min[i] = std::min(y_min[i], y);
      y_max[i] = std::max(y_max[i], y);
      max_displacement[i] = std::max(max_displacement[i], (s.solids[i].x - rest[i]).colwise().norm().maxCoeff());
      // As fsicut --strict: an inverted tetrahedron ends the run.
      const fsicut::Index inverted = fsicut::sim::inverted_elements(s.solids[i]);
      if (distorted_substep == 0 && !(worst[i].max_strain <= p.max_strain))
        distorted_substep = substeps;
      if (inverted > 0) {
        failed_substep = substeps;
        throw fsicut::SimulationError("solid \"" + s.solids[i].name + "\" has " + std::to_string(inverted) +
                                      " inverted tetrahedra (det F <= 0) at t = " + std::to_string(s.time) + " s");
      }
    }
  };
  try {
    while (state.frame < state.scene.time.frames) {
      fsicut::sim::FrameStats tally;
      fsicut::StageTimes times;
      fsicut::sim::advance_frame(state, tally, times, hooks);
      for (size_t i = 0; i < state.solids.size(); ++i)
        frame_y[i].push_back(fsicut::solid::stats(state.solids[i]).centroid.y());
    }
  } catch (const fsicut::Error& e) {
    error = e.what();
    if (failed_substep == 0) failed_substep = substeps + 1;  // the substep that threw
  }
  std::printf("{\"scene\": \"%s\", \"scheme\": \"%s\", \"completed\": %s, \"frames\": %d, \"frames_done\": %d, "
              "\"substeps\": %d, \"failed_substep\": %d, \"distorted_substep\": %d, \"unconverged_substeps\": %d, "
              "\"missed_tolerance_substeps\": %d, \"error\": \"",
              p.scene.c_str(), fsicut::scene::to_string(state.scene.coupling.scheme), error.empty() ? "true" : "false",
              state.scene.time.frames, state.frame, substeps, failed_substep, distorted_substep, unconverged, missed);
  for (char c : error) {
    if (c == '"' || c == '\\') std::printf("\\%c", c);
    else if (c >= ' ') std::putchar(c);
  }
  std::printf("\", \"spectral_radius\": [");
  for (size_t k = 0; k < radii.size(); ++k) std::printf("%s%.6g", k ? ", " : "", radii[k]);
  std::printf("], \"solids\": [");
  for (size_t i = 0; i < state.solids.size(); ++i) {
    const auto c = fsicut::solid::stats(state.solids[i]).centroid;
    std::printf("%s{\"name\": \"%s\", ", i ? ", " : "", state.solids[i].name.c_str());
    print_num("min_volume_ratio", worst[i].min_volume_ratio);
    print_num("max_strain", worst[i].max_strain);
    print_num("max_displacement", max_displacement[i]);
    std::printf("\"start\": [%.6g, %.6g, %.6g], ", start[i].x(), start[i].y(), start[i].z());
    std::printf("\"end\": [%.6g, %.6g, %.6g], ", c.x(), c.y(), c.z());
    std::printf("\"frame_y\": [");
    for (size_t k = 0; k < frame_y[i].size(); ++k) std::printf("%s%.6g", k ? ", " : "", frame_y[i][k]);
    std::printf("], ");
    print_num("min_y", y_min[i]);
    print_num("max_y", y_max[i], "}");
  }
  std::printf("]}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  fsicut::use_passive_wait_policy(argv);
  fsicut::retain_freed_memory();
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "matrices" && mode != "stability")) {
    std::fprintf(stderr,
                 "usage: %s matrices SCENE.json STEPS [--cond-every K] [--set /pointer=value ...]\n"
                 "       %s stability SCENE.json [--radius] [--set /pointer=value ...]\n",
                 argv[0], argv[0]);
    return 64;
  }
  try {
    fsicut::set_threads(0);
    const Parsed p = parse(argc, argv);
    return mode == "matrices" ? matrices(p) : stability(p);
  } catch (const fsicut::Error& e) {
    std::fprintf(stderr, "fsicut_bench_paper: %s\n", e.what());
    return static_cast<int>(e.code());
  }
}
