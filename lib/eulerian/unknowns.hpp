#pragma once
// Which grid nodes carry velocity unknowns of a solid's solves, and the moves
// between full nodal fields (q1.hpp) and the solves' vectors.
//
// A node is an unknown when it has mass (some solid in a cell around it) and
// does not lie on the domain boundary: the domain walls are no-slip, their
// nodes' velocity is 0 and not solved for. Unknown u (0-based, in increasing
// node order) owns entries 3u, 3u+1, 3u+2 of a solve's vector (x, y, z).
#include <vector>

#include "lib/eulerian/q1.hpp"

namespace fsicut::eulerian {

struct Unknowns {
  std::vector<Index> nodes;    // node index of each unknown
  std::vector<Index> of_node;  // unknown of each node, -1 for none
  Index size() const { return static_cast<Index>(nodes.size()); }
  Index dofs() const { return 3 * size(); }
};

// True for a node on the domain boundary (a no-slip wall node).
bool on_domain_boundary(const grid::MacGrid& grid, const Vec3i& node);

// The unknowns of `grid` given the lumped nodal masses (#nodes) [kg].
Unknowns make_unknowns(const grid::MacGrid& grid, const std::vector<Real>& node_mass);

// The unknowns' entries of a nodal field: 3 * #unknowns.
Vector gather(const Unknowns& unknowns, const NodeField& field);

// Writes the unknowns' entries into `field` (other nodes untouched).
void scatter(const Unknowns& unknowns, const Vector& values, NodeField& field);

// The lumped mass of each unknown, repeated per component: 3 * #unknowns [kg].
Vector gather_mass(const Unknowns& unknowns, const std::vector<Real>& node_mass);

}  // namespace fsicut::eulerian
