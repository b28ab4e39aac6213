#pragma once
// Prescribed rigid motion of an obstacle or a pinned region (scene keys
// obstacles/*/motion and solids/*/pinned/*/motion, scenes/README.md): the
// plain description the scene file gives, and its evaluation, a pure function
// of time (so a checkpoint that restores the clock restores the motion).
//
// A motion moves the shape as the scene places it: a point X of the shape is
// at time t at
//   x(t) = pivot + T(t) + R(t) (X - pivot)
// with T the translation [m] and R the rotation. Two forms:
//   keyframes  T and the Euler angles [degrees] about x, then y, then z
//              (R = Rz Ry Rx, as a solid's transform) at increasing times;
//              between two keyframes T is linear in t and R the spherical
//              linear interpolation (slerp, the shorter arc) of the two
//              rotations; before the first keyframe and after the last the
//              shape holds that keyframe's pose (velocity zero). `pivot`
//              [m] defaults to the shape's centre.
//   sine       T = amplitude sin(2 pi t / period + phase), R = I (a piston).
// The velocity of the moving shape at a world point x is the rigid field
//   v(x) = dT/dt + omega x (x - pivot - T),
// omega [rad/s] the angular velocity in world axes; at a keyframe's time the
// segment that starts there counts (right-continuous).
#include <optional>
#include <string>
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::scene {

struct Keyframe {
  Real time = 0;            // [s]
  Vec3 translate{0, 0, 0};  // [m]
  Vec3 rotate{0, 0, 0};     // Euler angles about x, then y, then z [degrees]
};

struct Sine {
  Vec3 amplitude{0, 0, 0};  // [m]
  Real period = 1;          // T [s], > 0
  Real phase = 0;           // [rad]
};

struct Motion {
  enum class Type { keyframes, sine };
  Type type = Type::keyframes;
  std::vector<Keyframe> keyframes;  // times strictly increasing, at least one
  std::optional<Vec3> pivot;        // keyframes: centre of rotation [m]; none: the shape's centre
  Sine sine;
  std::string pointer;              // JSON pointer of the motion object in the scene
};

// The rotation Rz Ry Rx of Euler angles about x, then y, then z [degrees].
Eigen::Matrix3d euler_rotation(const Vec3& degrees);

// A rigid placement with its rate: where the motion has the shape at one time.
struct MotionState {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  // R
  Vec3 translation{0, 0, 0};  // T [m]
  Vec3 pivot{0, 0, 0};        // [m], in the scene's placement
  Vec3 velocity{0, 0, 0};     // dT/dt [m/s]
  Vec3 angular{0, 0, 0};      // omega [rad/s], world axes

  // Where the point X of the shape as placed in the scene is [m].
  Vec3 apply(const Vec3& X) const { return pivot + translation + rotation * (X - pivot); }
  // The point of the scene's shape now at x [m] (the inverse of apply).
  Vec3 inverse(const Vec3& x) const { return pivot + rotation.transpose() * (x - pivot - translation); }
  // The velocity [m/s] of the moving shape's point now at x.
  Vec3 velocity_at(const Vec3& x) const { return velocity + angular.cross(x - pivot - translation); }
  bool moves() const { return velocity != Vec3::Zero() || angular != Vec3::Zero(); }
};

// The motion at time t [s]; `centre` [m] is the pivot when the motion names none.
MotionState evaluate(const Motion& motion, Real t, const Vec3& centre);

// A bound of the speed [m/s] of any point within `reach` [m] of `centre`
// (the default pivot) under the motion: the fastest translation plus the
// fastest turn times the point's farthest distance from the pivot.
Real speed_bound(const Motion& motion, const Vec3& centre, Real reach);

// The times [s] between which the motion changes: keyframes from the first to
// the last keyframe's time, sine [0, one period) (it repeats). What checks
// sample to see the whole of it.
std::pair<Real, Real> motion_span(const Motion& motion);

}  // namespace fsicut::scene
