#include "lib/scene/motion.hpp"

#include <algorithm>
#include <cmath>

namespace fsicut::scene {
namespace {

constexpr Real PI = 3.14159265358979323846;

// Keyframe segment k (from keyframes[k] to keyframes[k + 1]) at time t,
// t within it; R(s) = q0 exp(s angle axis), omega = R(s) axis angle / length.
MotionState between(const Keyframe& a, const Keyframe& b, Real t) {
  MotionState m;
  const Real length = b.time - a.time;
  const Real s = (t - a.time) / length;
  m.translation = a.translate + s * (b.translate - a.translate);
  m.velocity = (b.translate - a.translate) / length;
  const Eigen::Quaterniond q0(euler_rotation(a.rotate));
  Eigen::Quaterniond q1(euler_rotation(b.rotate));
  if (q0.dot(q1) < 0) q1.coeffs() = -q1.coeffs();
  const Eigen::AngleAxisd turn(q0.conjugate() * q1);
  m.rotation = (q0 * Eigen::Quaterniond(Eigen::AngleAxisd(s * turn.angle(), turn.axis()))).toRotationMatrix();
  m.angular = m.rotation * (turn.axis() * (turn.angle() / length));
  return m;
}

MotionState keyframed(const std::vector<Keyframe>& keys, Real t) {
  if (keys.empty()) return {};
  const auto held = [](const Keyframe& k) {
    MotionState m;
    m.translation = k.translate;
    m.rotation = euler_rotation(k.rotate);
    return m;
  };
  if (t < keys.front().time) return held(keys.front());
  if (t >= keys.back().time) return held(keys.back());
  // The segment whose start is the last keyframe at or before t.
  const auto after = std::upper_bound(keys.begin(), keys.end(), t,
                                      [](Real time, const Keyframe& k) { return time < k.time; });
  return between(*(after - 1), *after, t);
}

}  // namespace

Eigen::Matrix3d euler_rotation(const Vec3& degrees) {
  const Vec3 r = degrees * (PI / 180);
  return (Eigen::AngleAxisd(r.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(r.y(), Vec3::UnitY()) *
          Eigen::AngleAxisd(r.x(), Vec3::UnitX()))
      .toRotationMatrix();
}

MotionState evaluate(const Motion& motion, Real t, const Vec3& centre) {
  MotionState m;
  if (motion.type == Motion::Type::sine) {
    const Real w = 2 * PI / motion.sine.period, angle = w * t + motion.sine.phase;
    m.translation = motion.sine.amplitude * std::sin(angle);
    m.velocity = motion.sine.amplitude * (w * std::cos(angle));
  } else {
    m = keyframed(motion.keyframes, t);
  }
  m.pivot = motion.pivot.value_or(centre);
  return m;
}

Real speed_bound(const Motion& motion, const Vec3& centre, Real reach) {
  if (motion.type == Motion::Type::sine) return motion.sine.amplitude.norm() * 2 * PI / motion.sine.period;
  const Real arm = reach + (motion.pivot.value_or(centre) - centre).norm();
  Real fastest = 0;
  for (std::size_t k = 0; k + 1 < motion.keyframes.size(); ++k) {
    const Keyframe &a = motion.keyframes[k], &b = motion.keyframes[k + 1];
    const Real length = b.time - a.time;
    const Eigen::Quaterniond q0(euler_rotation(a.rotate)), q1(euler_rotation(b.rotate));
    const Real turn = 2 * std::acos(std::min(std::abs(q0.dot(q1)), Real(1)));
    fastest = std::max(fastest, ((b.translate - a.translate).norm() + turn * arm) / length);
  }
  return fastest;
}

std::pair<Real, Real> motion_span(const Motion& motion) {
  if (motion.type == Motion::Type::sine) return {0, motion.sine.period};
  if (motion.keyframes.empty()) return {0, 0};
  return {motion.keyframes.front().time, motion.keyframes.back().time};
}

}  // namespace fsicut::scene
