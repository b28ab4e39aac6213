#include "lib/solid/layout.hpp"

#include <algorithm>


namespace fsicut::solid::detail {

namespace {

template <class Elements>
BlockLayout make_layout(const mesh::TetMesh& mesh, const Elements& elements, const std::vector<char>& covered) {
  constexpr int N = Elements::value_type::RowsAtCompileTime;
  BlockLayout L;
  L.nodes_per_element = N;
  const Index n = mesh.rest.cols();
  L.block_of_node.assign(n, -1);
  for (Index i = 0; i < n; ++i)
    if (covered[i]) {
      L.block_of_node[i] = L.num_blocks();
      L.node_of_block.push_back(static_cast<int>(i));
    }
  const int nb = L.num_blocks();

  // Neighbour lists (covered nodes sharing a tet) and element incidence per block row.
  std::vector<std::vector<int>> nbrs(nb);
  std::vector<std::vector<std::array<int, 2>>> inc(nb);
  for (size_t t = 0; t < elements.size(); ++t)
    for (int a = 0; a < N; ++a) {
      const int r = L.block_of_node[elements[t][a]];
      if (r < 0) continue;
      inc[r].push_back({static_cast<int>(t), a});
      for (int b = 0; b < N; ++b) {
        const int c = L.block_of_node[elements[t][b]];
        if (c >= 0) nbrs[r].push_back(c);
      }
    }
  L.neighbour_start.assign(nb + 1, 0);
  L.incidence_start.assign(nb + 1, 0);
  for (int r = 0; r < nb; ++r) {
    std::sort(nbrs[r].begin(), nbrs[r].end());
    nbrs[r].erase(std::unique(nbrs[r].begin(), nbrs[r].end()), nbrs[r].end());
    L.neighbour_start[r + 1] = L.neighbour_start[r] + static_cast<int>(nbrs[r].size());
    L.incidence_start[r + 1] = L.incidence_start[r] + static_cast<int>(inc[r].size());
    L.neighbours.insert(L.neighbours.end(), nbrs[r].begin(), nbrs[r].end());
    L.incidence.insert(L.incidence.end(), inc[r].begin(), inc[r].end());
  }

  L.slot.resize(elements.size() * N * N);
  for (size_t t = 0; t < elements.size(); ++t)
    for (int a = 0; a < N; ++a)
      for (int b = 0; b < N; ++b) {
        const int r = L.block_of_node[elements[t][a]];
        const int c = L.block_of_node[elements[t][b]];
        int s = -1;
        if (r >= 0 && c >= 0)
          s = static_cast<int>(std::lower_bound(nbrs[r].begin(), nbrs[r].end(), c) - nbrs[r].begin());
        L.slot[(t * N + a) * N + b] = s;
      }

  // CSR pattern: row 3r + d holds columns 3c + e for the neighbours c of r, ascending.
  L.pattern.resize(3 * nb, 3 * nb);
  Eigen::VectorXi per_row(3 * nb);
  for (int r = 0; r < nb; ++r) per_row.segment<3>(3 * r).setConstant(3 * static_cast<int>(nbrs[r].size()));
  L.pattern.reserve(per_row);
  for (int r = 0; r < nb; ++r)
    for (int d = 0; d < 3; ++d)
      for (int c : nbrs[r])
        for (int e = 0; e < 3; ++e) L.pattern.insert(3 * r + d, 3 * c + e) = 0;
  L.pattern.makeCompressed();
  return L;
}

}  // namespace

BlockLayout make_layout(const mesh::TetMesh& mesh, const std::vector<char>& covered) {
  return mesh.is_quadratic() ? make_layout(mesh, mesh.quadratic, covered) : make_layout(mesh, mesh.tets, covered);
}

SparseMatrix assemble_stiffness(const Body& body, const BlockLayout& L) {
  SparseMatrix K = L.pattern;
  const int* outer = K.outerIndexPtr();
  Real* values = K.valuePtr();
  with_element(body, [&](auto n) {
    constexpr int N = decltype(n)::value;
    for_each_index(L.num_blocks(), [&](Index r) {
      for (int k = L.incidence_start[r]; k < L.incidence_start[r + 1]; ++k) {
        const int t = L.incidence[k][0], a = L.incidence[k][1];
        const Mat3& R = body.R[t];
        const auto& K0 = Element<N>::K0(body, t);
        for (int b = 0; b < N; ++b) {
          const int s = L.slot[(static_cast<std::size_t>(t) * N + a) * N + b];
          if (s < 0) continue;
          const Mat3 block = R * K0.template block<3, 3>(3 * a, 3 * b) * R.transpose();
          for (int d = 0; d < 3; ++d) {
            Real* row = values + outer[3 * r + d] + 3 * s;
            for (int e = 0; e < 3; ++e) row[e] += block(d, e);
          }
        }
      }
    });
  });
  return K;
}

SparseMatrix scaled_plus_mass(const Body& body, const BlockLayout& L, const SparseMatrix& K, Real c,
                              Real diag_coef) {
  SparseMatrix S = c * K;
  const int* outer = S.outerIndexPtr();
  Real* values = S.valuePtr();
  for (int r = 0; r < L.num_blocks(); ++r) {
    const auto first = L.neighbours.begin() + L.neighbour_start[r];
    const auto last = L.neighbours.begin() + L.neighbour_start[r + 1];
    const int self = static_cast<int>(std::lower_bound(first, last, r) - first);
    const Real m = diag_coef * body.mass[L.node_of_block[r]];
    for (int d = 0; d < 3; ++d) values[outer[3 * r + d] + 3 * self + d] += m;
  }
  return S;
}

}  // namespace fsicut::solid::detail
