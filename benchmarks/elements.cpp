// Linear against quadratic tetrahedra at equal accuracy (issue #20), the
// accuracy half: prints one JSON line per mesh.
//   fsicut_bench_elements [MAX_LAYERS]
// The beam of the paper's dam break (0.1 x 0.7 x 0.1 m, clamped at one end,
// structured box cells n x 7n x n, n = 1..MAX_LAYERS, default 12) laid along x
// and loaded by its own weight, solved statically with the assembled rest
// stiffness (solid::free_stiffness, the matrix every coupled step uses), for
// linear and quadratic elements (quadratic up to 4 layers). "deflection_ratio": the mean sag of the free
// end over Euler-Bernoulli's q L^4 / (8 E I) plus Timoshenko's shear deflection
// q L^2 / (2 kappa G A) (nu = 0: a uniaxial-stress beam like the theory).
// scripts/bench --elements picks the coarsest mesh of each element within 3 %
// and times it in the coupled dam break with fsicut_bench_stages.
#include <Eigen/SparseCholesky>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lib/mesh/box.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/corotation.hpp"

namespace {

using namespace fsicut;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void measure(solid::ElementOrder element, int n) {
  const Real L = 0.7, h = 0.1, E = 1e8, rho = 1000, g = 9.81;
  solid::BodySpec d;
  d.name = "beam";
  d.density = rho;
  d.youngs_modulus = E;
  d.poisson_ratio = 0;
  d.element = element;
  d.pinned = [](const Vec3& x) { return x.x() <= 0; };  // the clamped end
  const Vec3i cells(7 * n, n, n);
  const double start = now();
  const solid::Body b = solid::make_body(d, mesh::box_mesh(Vec3(0, 0, 0), Vec3(L, h, h), cells));
  const solid::SparseMatrix K = solid::free_stiffness(b);
  linsolve::Vector f = linsolve::Vector::Zero(K.rows());
  for (int k = 0; k < b.dofs.num_free_nodes(); ++k) f[3 * k + 1] = -b.mass[b.dofs.free_nodes[k]] * g;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>> ldlt(K);
  const linsolve::Vector u = ldlt.solve(f);
  Real sag = 0;
  int count = 0;
  for (int k = 0; k < b.dofs.num_free_nodes(); ++k)
    if (std::abs(b.mesh.rest(0, b.dofs.free_nodes[k]) - L) < 1e-9) {
      sag -= u[3 * k + 1];
      ++count;
    }
  sag /= count;
  const Real A = h * h, I = h * h * h * h / 12, q = rho * A * g, G = E / 2, kappa = 5.0 / 6;
  const Real reference = q * L * L * L * L / (8 * E * I) + q * L * L / (2 * kappa * G * A);
  std::printf(
      "{\"element\": \"%s\", \"layers\": %d, \"cells\": [%d, %d, %d], \"nodes\": %ld, \"elements\": %ld, "
      "\"free_dofs\": %d, \"stiffness_nonzeros\": %ld, \"deflection_ratio\": %.5f, \"solve_seconds\": %.4f}\n",
      element == solid::ElementOrder::linear ? "linear" : "quadratic", n, n, 7 * n, n,
      static_cast<long>(b.num_nodes()), static_cast<long>(b.num_tets()), b.dofs.num_free_dofs(),
      static_cast<long>(K.nonZeros()), sag / reference, now() - start);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int max_layers = argc > 1 ? std::atoi(argv[1]) : 12;
  if (max_layers < 1) {
    std::fprintf(stderr, "usage: fsicut_bench_elements [MAX_LAYERS >= 1]\n");
    return 64;
  }
  for (int n = 1; n <= max_layers; ++n) measure(solid::ElementOrder::linear, n);
  for (int n = 1; n <= std::min(max_layers, 4); ++n) measure(solid::ElementOrder::quadratic, n);
  return 0;
}
