#include "lib/eulerian/constraints.hpp"

#include <algorithm>
#include <array>

#include "lib/eulerian/void_step.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::eulerian {

namespace {

// The kernel of J^T over the cells of a closed box (world.hpp): the
// constant and, for every layer of cells across each axis, the layer's
// checkerboard in the other two. On a layer across z, for instance,
// p = (-1)^(i+j) gives (J^T p)_q = 0 at every interior node: each of the
// node's eight cells pairs with one of the opposite sign along x or y.
// Every cell lies in four modes: the constant and one layer per axis. The
// modes' indices and values at cell c:
struct CellModes {
  std::array<Index, 4> index;
  std::array<Real, 4> value;
};

// Relative residual of the kernel projection's normal equations (b's part along the kernel: far below Eq. 12's tolerance).
constexpr Real KERNEL_TOLERANCE = 1e-10;

CellModes cell_modes(const grid::MacGrid& grid, Index c) {
  const Vec3i i = cell_coord(grid, c);
  CellModes m;
  m.index[0] = 0;
  m.value[0] = 1;
  Index first = 1;
  for (int axis = 0; axis < 3; ++axis) {
    m.index[axis + 1] = first + i[axis];
    m.value[axis + 1] = ((i.sum() - i[axis]) % 2) ? -1.0 : 1.0;
    first += grid.resolution[axis];
  }
  return m;
}

}  // namespace

Vec3i cell_coord(const grid::MacGrid& grid, Index c) {
  const Index nx = grid.resolution.x(), ny = grid.resolution.y();
  return Vec3i(static_cast<int>(c % nx), static_cast<int>((c / nx) % ny), static_cast<int>(c / (nx * ny)));
}

std::vector<Vec3i> constrained_cells(const grid::MacGrid& grid, const Unknowns& unknowns, bool closed_box,
                                     const std::vector<const std::vector<Vec3i>*>& solid_cells) {
  std::vector<Index> indices;
  if (closed_box) {
    for (Index c = 0; c < grid.cell_count(); ++c) {
      bool free = false;
      for (int q = 0; q < CORNERS && !free; ++q) free = unknowns.of_node[corner_node(grid, cell_coord(grid, c), q)] >= 0;
      if (free) indices.push_back(c);
    }
  } else {
    for (const std::vector<Vec3i>* cells : solid_cells)
      for (const Vec3i& c : *cells) indices.push_back(cell_index(grid, c));
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  }
  std::vector<Vec3i> cells;
  cells.reserve(indices.size());
  for (Index c : indices) cells.push_back(cell_coord(grid, c));
  return cells;
}

// Removes from b (one entry per cell of `cells`) its orthogonal projection
// onto the kernel of J^T: least squares over the modes Phi (#cells x modes,
// four entries per row). The modes overlap ((-1)^(i+j+k) lies in all three
// families), so the normal equations Phi^T Phi c = Phi^T b are singular but
// consistent: Jacobi PCG reaches a solution, and Phi c, the projection, is
// unique. Why not a dense decomposition: the Gram matrix has 1 + nx + ny + nz
// rows; a box 8000 cells long made it 0.5 GB and its factorization ran for
// minutes without a cancellation point (a fuzz finding).
void remove_kernel_components(const grid::MacGrid& grid, const std::vector<Vec3i>& cells, Vector& b) {
  if (b.isZero(0)) return;
  const Index count = 1 + grid.resolution.sum();
  std::vector<Eigen::Triplet<Real, int>> entries;
  entries.reserve(4 * cells.size());
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const CellModes m = cell_modes(grid, cell_index(grid, cells[c]));
    for (int a = 0; a < 4; ++a) entries.emplace_back(static_cast<int>(c), static_cast<int>(m.index[a]), m.value[a]);
  }
  linsolve::SparseMatrix phi(b.size(), count);
  phi.setFromTriplets(entries.begin(), entries.end());
  const linsolve::SparseMatrix phi_t = linsolve::transposed(phi);
  const linsolve::SparseMatrix gram = linsolve::product(phi_t, phi);
  linsolve::PcgSettings pcg;
  pcg.tolerance = KERNEL_TOLERANCE;
  pcg.max_iterations = static_cast<int>(std::min<Index>(10 * count, 100000));
  pcg.preconditioner = linsolve::Preconditioner::jacobi;
  Vector coefficients = Vector::Zero(count);
  require_converged(linsolve::solve_pcg(gram, phi_t * b, coefficients, pcg), "kernel projection of b");
  b -= phi * coefficients;
}

}  // namespace fsicut::eulerian
