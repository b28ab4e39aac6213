#pragma once
// Internal to lib/solid: the fixed sparsity of node-block matrices (stiffness,
// damping, system matrices) and a race-free parallel assembly into it.
//
// A BlockLayout covers a subset of the nodes (all nodes, or the free ones),
// numbered 0..#blocks-1 ("block" = one node's 3 dofs). Block row r holds a
// 3 x 3 block for every covered node sharing a tet with node r, itself
// included; the 3n x 3n pattern is built once and copied for each assembly.
// Assembly runs in parallel over block rows: each row gathers the element
// blocks that land in it, so no two threads write the same entry.
#include <array>
#include <type_traits>
#include <vector>

#include "lib/core/parallel.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::solid::detail {

// Loops over fewer items (tets, nodes) than this run serially: each item costs
// about a microsecond, so forking a thread team would cost more than it saves
// on small meshes (and idle threads spinning hurt on shared cores).
constexpr Index MIN_PARALLEL_ITEMS = 1024;

template <class F>
void for_each_index(Index n, F&& body) {
  if (n < MIN_PARALLEL_ITEMS) {
    for (Index i = 0; i < n; ++i) body(i);
  } else {
    parallel_for(0, n, body);
  }
}

// Element access by nodes per element N (4: linear, 10: quadratic), so the
// element loops compile to fixed-size code for both.
template <int N>
struct Element;
template <>
struct Element<4> {
  using Stiffness = Mat12;
  using Forces = Vec12;
  static int node(const Body& b, Index t, int a) { return b.mesh.tets[static_cast<std::size_t>(t)][a]; }
  static const Stiffness& K0(const Body& b, Index t) { return b.K0[static_cast<std::size_t>(t)]; }
};
template <>
struct Element<10> {
  using Stiffness = Mat30;
  using Forces = Eigen::Matrix<Real, 30, 1>;
  static int node(const Body& b, Index t, int a) { return b.mesh.quadratic[static_cast<std::size_t>(t)][a]; }
  static const Stiffness& K0(const Body& b, Index t) { return b.K0q[static_cast<std::size_t>(t)]; }
};

// Calls f(std::integral_constant<int, N>) with the body's nodes per element.
template <class F>
decltype(auto) with_element(const Body& body, F&& f) {
  if (body.quadratic()) return f(std::integral_constant<int, 10>{});
  return f(std::integral_constant<int, 4>{});
}

struct BlockLayout {
  std::vector<int> block_of_node;  // #nodes: block index, -1 when not covered
  std::vector<int> node_of_block;  // #blocks
  // Block row r's neighbour blocks, ascending: neighbours[neighbour_start[r] .. neighbour_start[r+1]).
  std::vector<int> neighbour_start, neighbours;
  // Elements touching block row r, as (element, local node a): incidence[incidence_start[r] ..).
  std::vector<int> incidence_start;
  std::vector<std::array<int, 2>> incidence;
  // #elements x N^2 (N nodes per element): slot[N^2 t + N a + b] is, for
  // element t and its local nodes (a, b), the position of b's block in the
  // neighbour list of a's block row (0-based within the row), -1 when either
  // node is not covered.
  int nodes_per_element = 4;
  std::vector<int> slot;
  SparseMatrix pattern;  // 3*#blocks square, RowMajor, all entries explicit zeros

  int num_blocks() const { return static_cast<int>(node_of_block.size()); }
};

// Layout over the nodes with covered[i] != 0, neighbours by the mesh's
// elements (quadratic ones when it has them).
BlockLayout make_layout(const mesh::TetMesh& mesh, const std::vector<char>& covered);

// Returns the corotated stiffness sum_e R_e K0_e R_e^T over the layout's blocks.
SparseMatrix assemble_stiffness(const Body& body, const BlockLayout& layout);

// c K + diag_coef M on K's pattern (K from assemble_stiffness with the same
// layout; M the lumped mass on the 3 dofs of each node's diagonal block).
SparseMatrix scaled_plus_mass(const Body& body, const BlockLayout& layout, const SparseMatrix& K, Real c,
                              Real diag_coef);

}  // namespace fsicut::solid::detail
