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

struct BlockLayout {
  std::vector<int> block_of_node;  // #nodes: block index, -1 when not covered
  std::vector<int> node_of_block;  // #blocks
  // Block row r's neighbour blocks, ascending: neighbours[neighbour_start[r] .. neighbour_start[r+1]).
  std::vector<int> neighbour_start, neighbours;
  // Elements touching block row r, as (tet, local node a): incidence[incidence_start[r] ..).
  std::vector<int> incidence_start;
  std::vector<std::array<int, 2>> incidence;
  // #tets: slot[t][4*a + b] is, for tet t and its local nodes (a, b), the
  // position of b's block in the neighbour list of a's block row (0-based
  // within the row), -1 when either node is not covered.
  std::vector<std::array<int, 16>> slot;
  SparseMatrix pattern;  // 3*#blocks square, RowMajor, all entries explicit zeros

  int num_blocks() const { return static_cast<int>(node_of_block.size()); }
};

// Layout over the nodes with covered[i] != 0.
BlockLayout make_layout(const mesh::TetMesh& mesh, const std::vector<char>& covered);

// Returns the corotated stiffness sum_e R_e K0_e R_e^T over the layout's blocks.
SparseMatrix assemble_stiffness(const Body& body, const BlockLayout& layout);

// c K + diag_coef M on K's pattern (K from assemble_stiffness with the same
// layout; M the lumped mass on the 3 dofs of each node's diagonal block).
SparseMatrix scaled_plus_mass(const Body& body, const BlockLayout& layout, const SparseMatrix& K, Real c,
                              Real diag_coef);

}  // namespace fsicut::solid::detail
