// The scene fingerprint (lib/scene/fingerprint.hpp): keys that may change
// between a run and its resume are left out, changed keys are named with their
// old and new values.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/scene/fingerprint.hpp"
#include "lib/scene/load.hpp"

using namespace fsicut;

namespace {

const char* SCENE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "time": { "frames": 4 },
  "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                "cells": [4, 2, 2] }, "youngs_modulus": 2e4 } ] })";

scene::Scene parse(const std::string& out = "out") { return scene::parse_scene(SCENE, "test.json", out); }

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("the fingerprint leaves out the output folder and frames and checkpoint interval and preconditioner and strict and on_absurd") {
  const scene::Scene a = parse();
  scene::Scene b = parse("elsewhere");
  b.time.frames = 40;
  b.output.checkpoint_every = 3;
  b.output.checkpoint_keep = 5;
  b.strict = !a.strict;
  b.on_absurd = scene::Scene::OnAbsurd::warn;
  CHECK(scene::fingerprint(a) == scene::fingerprint(b));
  const std::string f = scene::fingerprint(a);
  CHECK(f.find("\"frames\"") == std::string::npos);
  CHECK(f.find("\"directory\"") == std::string::npos);
  CHECK(f.find("\"checkpoint_every\"") == std::string::npos);
  CHECK(f.find("\"youngs_modulus\":20000.0") != std::string::npos);
}

TEST_CASE("changed_keys names every changed pointer with its old and new value") {
  const scene::Scene a = parse();
  scene::Scene b = parse();
  CHECK(scene::changed_keys(scene::fingerprint(a), scene::fingerprint(b)).empty());
  b.gravity = Vec3(0, -5, 0);
  b.solids[0].density = 800;
  const std::vector<std::string> changed = scene::changed_keys(scene::fingerprint(a), scene::fingerprint(b));
  CHECK(changed.size() == 2);
  CHECK(has(changed, "/gravity: [0.0,-9.81,0.0] -> [0.0,-5.0,0.0]"));
  CHECK(has(changed, "/solids/0/density: 1000.0 -> 800.0"));
}

TEST_CASE("changed_keys says absent for a key only one side has") {
  const std::vector<std::string> changed =
      scene::changed_keys(R"({"a":{"b":1,"c":[1,2]},"d":[{"e":true}]})", R"({"a":{"c":[1,3]},"d":[{"e":true},{"f":2}]})");
  CHECK(changed == std::vector<std::string>{"/a/b: 1 -> (absent)", "/a/c: [1,2] -> [1,3]", "/d/1/f: (absent) -> 2"});
}
