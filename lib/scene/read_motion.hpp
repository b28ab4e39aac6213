#pragma once
// The `motion` of an obstacle or a pinned region (scenes/README.md "Motion";
// lib/scene/motion.hpp says what it means).
#include "lib/scene/json_reader.hpp"
#include "lib/scene/motion.hpp"

namespace fsicut::scene {

// Reads the object at `w` (.../motion): exactly one of
//   "keyframes": [{"time", "translate", "rotate"}, ...] (at least one, times
//                strictly increasing) with an optional "pivot" [x, y, z], or
//   "sine": {"amplitude", "period" (> 0), "phase"}.
// Every error names the pointer of the offending value.
Motion read_motion(const json& j, const Where& w);

}  // namespace fsicut::scene
