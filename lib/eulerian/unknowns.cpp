#include "lib/eulerian/unknowns.hpp"

namespace fsicut::eulerian {

bool on_domain_boundary(const grid::MacGrid& grid, const Vec3i& node) {
  for (int a = 0; a < 3; ++a)
    if (node[a] == 0 || node[a] == grid.resolution[a]) return true;
  return false;
}

Unknowns make_unknowns(const grid::MacGrid& grid, const std::vector<Real>& node_mass) {
  Unknowns out;
  const Index n = node_count(grid);
  out.of_node.assign(static_cast<std::size_t>(n), -1);
  for (Index node = 0; node < n; ++node) {
    if (!(node_mass[node] > 0)) continue;
    if (on_domain_boundary(grid, node_coord(grid, node))) continue;
    out.of_node[node] = out.size();
    out.nodes.push_back(node);
  }
  return out;
}

Vector gather(const Unknowns& unknowns, const NodeField& field) {
  Vector out(unknowns.dofs());
  for (Index k = 0; k < unknowns.size(); ++k) out.segment<3>(3 * k) = field.segment<3>(3 * unknowns.nodes[k]);
  return out;
}

void scatter(const Unknowns& unknowns, const Vector& values, NodeField& field) {
  for (Index k = 0; k < unknowns.size(); ++k) field.segment<3>(3 * unknowns.nodes[k]) = values.segment<3>(3 * k);
}

Vector gather_mass(const Unknowns& unknowns, const std::vector<Real>& node_mass) {
  Vector out(unknowns.dofs());
  for (Index k = 0; k < unknowns.size(); ++k) out.segment<3>(3 * k).setConstant(node_mass[unknowns.nodes[k]]);
  return out;
}

}  // namespace fsicut::eulerian
