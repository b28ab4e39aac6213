#pragma once
// The shared numeric vocabulary. Everything is SI: metres, seconds, kilograms, pascals.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>
#include <vector>

namespace fsicut {

using Real = double;
using Vec3 = Eigen::Vector3d;
using Vec3i = Eigen::Vector3i;
using Index = std::int64_t;

// Positions of n points, one per column: shape 3 x n.
using Points = Eigen::Matrix<Real, 3, Eigen::Dynamic>;

}  // namespace fsicut
