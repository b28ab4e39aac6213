#pragma once
// The scene fingerprint: what identifies "the same scene" between a run and
// its resume (a checkpoint stores it; sim/snapshot.hpp compares it).
#include <string>
#include <vector>

#include "lib/scene/scene.hpp"

namespace fsicut::scene {

// The resolved scene as canonical JSON (to_json: sorted keys, compact) without
// the keys that may change between a run and its resume: output/directory,
// time/frames (to extend a run), output/checkpoint_every,
// output/checkpoint_keep, coupling/preconditioner (it changes the solution
// only within the solve's tolerance), strict (it only decides whether
// inverted elements stop the run) and on_absurd (whether absurd results do).
std::string fingerprint(const Scene& scene);

// JSON pointers at which two fingerprints differ, each with its old and new
// value, e.g. "/solids/0/density: 500 -> 800", or "(absent)" for a key only
// one of them has; arrays of numbers count as one key. Empty when they agree.
std::vector<std::string> changed_keys(const std::string& old_fingerprint, const std::string& new_fingerprint);

}  // namespace fsicut::scene
