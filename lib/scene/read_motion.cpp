#include "lib/scene/read_motion.hpp"

namespace fsicut::scene {
namespace {

Keyframe read_keyframe(const json& j, const Where& w) {
  Object o(j, w);
  Keyframe k;
  o.require("time", k.time);
  o.get("translate", k.translate);
  o.get("rotate", k.rotate);
  o.finish();
  return k;
}

Sine read_sine(const json& j, const Where& w) {
  Object o(j, w);
  Sine s;
  o.require("amplitude", s.amplitude);
  o.require("period", s.period, [](const Real& v, const Where& at) {
    if (!(v > 0)) at.fail("must be > 0 [s], got " + num(v));
  });
  o.get("phase", s.phase);
  o.finish();
  return s;
}

}  // namespace

Motion read_motion(const json& j, const Where& w) {
  Object o(j, w);
  Motion m;
  m.pointer = w.pointer;
  const bool keyframes = o.has("keyframes"), sine = o.has("sine");
  if (keyframes == sine) w.fail("give exactly one of \"keyframes\" and \"sine\"");
  if (sine) {
    m.type = Motion::Type::sine;
    m.sine = read_sine(o.at("sine"), w / "sine");
    if (o.has("pivot")) (w / "pivot").fail("a sine motion only translates: \"pivot\" belongs to \"keyframes\"");
  } else {
    m.type = Motion::Type::keyframes;
    m.keyframes = read_array<Keyframe>(o.at("keyframes"), w / "keyframes", read_keyframe);
    if (m.keyframes.empty()) (w / "keyframes").fail("needs at least one keyframe");
    for (std::size_t k = 1; k < m.keyframes.size(); ++k)
      if (!(m.keyframes[k].time > m.keyframes[k - 1].time))
        (w / "keyframes" / k / "time")
            .fail("keyframe times must increase: " + num(m.keyframes[k].time) + " is not after the previous " +
                  num(m.keyframes[k - 1].time));
    Vec3 pivot;
    o.get("pivot", pivot);
    if (o.has("pivot")) m.pivot = pivot;
  }
  o.finish();
  return m;
}

}  // namespace fsicut::scene
