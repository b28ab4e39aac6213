// The motion of obstacles and pinned regions (lib/scene/motion.hpp): poses
// at keyframes and between them, the velocity field against finite
// differences of the positions, and the scene errors of read_motion.
#include <doctest/doctest.h>

#include <cmath>

#include "lib/scene/fingerprint.hpp"
#include "lib/scene/load.hpp"
#include "lib/scene/motion.hpp"
#include "tests/scene/fixtures.hpp"

using namespace fsicut;
using scene::Motion;

namespace {

constexpr Real PI = 3.14159265358979323846;

Motion keyframed_motion() {
  Motion m;
  m.type = Motion::Type::keyframes;
  m.keyframes = {{0.5, Vec3(0, 0, 0), Vec3(0, 0, 0)},
                 {1.5, Vec3(0.2, -0.1, 0.05), Vec3(30, -20, 90)},
                 {2.0, Vec3(0.3, 0, 0), Vec3(0, 0, 0)}};
  m.pivot = Vec3(0.1, 0.2, 0.3);
  return m;
}

// |v(x(t)) - (x(t + h) - x(t - h)) / 2h| for the scene point X.
Real velocity_error(const Motion& m, Real t, const Vec3& X) {
  const Real h = 1e-6;
  const Vec3 centre(0.4, 0.4, 0.4);
  const scene::MotionState now = scene::evaluate(m, t, centre);
  const Vec3 fd = (scene::evaluate(m, t + h, centre).apply(X) - scene::evaluate(m, t - h, centre).apply(X)) / (2 * h);
  return (now.velocity_at(now.apply(X)) - fd).norm();
}

std::string motion_error(const std::string& motion) {
  return test::scene_error(R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.1 },
    "obstacles": [ { "type": "box", "min": [0.2, 0.2, 0.2], "max": [0.4, 0.4, 0.4], "motion": )" +
                           motion + " } ] }");
}

}  // namespace

TEST_CASE("a sine motion translates by amplitude sin(2 pi t / T + phase)") {
  Motion m;
  m.type = Motion::Type::sine;
  m.sine = {Vec3(0.1, 0, -0.02), 2.0, 0.3};
  for (Real t : {0.0, 0.37, 1.2, 5.9}) {
    const scene::MotionState s = scene::evaluate(m, t, Vec3::Zero());
    CHECK((s.translation - m.sine.amplitude * std::sin(PI * t + 0.3)).norm() < 1e-15);
    CHECK(s.rotation.isIdentity(0));
    CHECK(velocity_error(m, t, Vec3(0.3, 0.1, 0.2)) < 1e-8);
  }
}

TEST_CASE("keyframes: the poses at the keyframes, held before the first and after the last") {
  const Motion m = keyframed_motion();
  const Vec3 X(0.7, -0.2, 0.4), p = *m.pivot;
  for (const scene::Keyframe& k : m.keyframes) {
    const scene::MotionState s = scene::evaluate(m, k.time, Vec3::Zero());
    CHECK((s.apply(X) - (p + k.translate + scene::euler_rotation(k.rotate) * (X - p))).norm() < 1e-12);
  }
  const scene::MotionState before = scene::evaluate(m, -3, Vec3::Zero()), after = scene::evaluate(m, 10, Vec3::Zero());
  CHECK((before.apply(X) - X).norm() < 1e-15);
  CHECK(!before.moves());
  CHECK(!after.moves());
  CHECK((after.translation - Vec3(0.3, 0, 0)).norm() < 1e-15);
}

TEST_CASE("keyframes: rotations by slerp, the pivot defaults to the shape's centre") {
  Motion m;
  m.keyframes = {{0, Vec3::Zero(), Vec3::Zero()}, {1, Vec3::Zero(), Vec3(0, 0, 90)}};
  const Vec3 centre(1, 0, 0);
  const scene::MotionState half = scene::evaluate(m, 0.5, centre);
  CHECK((half.rotation - scene::euler_rotation(Vec3(0, 0, 45))).norm() < 1e-12);
  CHECK((half.apply(centre) - centre).norm() < 1e-15);
  CHECK((half.angular - Vec3(0, 0, PI / 2)).norm() < 1e-12);
  // A point one metre from the pivot turns at pi/2 m/s.
  CHECK(std::abs(half.velocity_at(half.apply(Vec3(2, 0, 0))).norm() - PI / 2) < 1e-12);
}

TEST_CASE("the velocity field is the time derivative of the positions (finite differences)") {
  const Motion m = keyframed_motion();
  for (Real t : {0.6, 0.99, 1.3, 1.6, 1.95})
    for (const Vec3& X : {Vec3(0, 0, 0), Vec3(0.7, -0.2, 0.4), Vec3(-1, 2, 0.5)}) CHECK(velocity_error(m, t, X) < 1e-7);
}

TEST_CASE("inverse undoes apply") {
  const Motion m = keyframed_motion();
  const scene::MotionState s = scene::evaluate(m, 1.1, Vec3::Zero());
  const Vec3 X(0.3, -0.6, 0.9);
  CHECK((s.inverse(s.apply(X)) - X).norm() < 1e-14);
}

TEST_CASE("motion keys are read, and bad ones are errors naming their pointer") {
  const scene::Scene s = scene::parse_scene(R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.1 },
    "obstacles": [ { "type": "sphere", "center": [0.4, 0.4, 0.4], "radius": 0.1,
                     "motion": { "keyframes": [ { "time": 0 }, { "time": 1, "translate": [0.1, 0, 0], "rotate": [0, 0, 10] } ],
                                 "pivot": [0, 0, 0] } } ],
    "solids": [ { "name": "flag", "mesh": { "type": "box", "min": [0.3, 0.3, 0.3], "max": [0.5, 0.5, 0.35] },
                  "pinned": [ { "type": "box", "min": [0.29, 0.29, 0.29], "max": [0.31, 0.51, 0.36],
                                "motion": { "sine": { "amplitude": [0, 0.05, 0], "period": 0.5 } } } ] } ] })",
                                            "t.json", "/scenes");
  REQUIRE(s.obstacles[0].motion);
  const Motion& m = *s.obstacles[0].motion;
  CHECK(m.type == Motion::Type::keyframes);
  REQUIRE(m.keyframes.size() == 2);
  CHECK(m.keyframes[1].rotate == Vec3(0, 0, 10));
  CHECK(m.pivot == Vec3(0, 0, 0));
  CHECK(m.pointer == "/obstacles/0/motion");
  REQUIRE(s.solids[0].pinned[0].motion);
  CHECK(s.solids[0].pinned[0].motion->type == Motion::Type::sine);
  CHECK(s.solids[0].pinned[0].motion->sine.period == 0.5);
  CHECK(s.solids[0].pinned[0].motion->sine.phase == 0);

  CHECK(motion_error(R"({ "keyframes": [ { "time": 0 }, { "time": 1 }, { "time": 1 } ] })")
            .find("/obstacles/0/motion/keyframes/2/time: keyframe times must increase") != std::string::npos);
  CHECK(motion_error(R"({ "sine": { "amplitude": [0.1, 0, 0], "period": 0 } })")
            .find("/obstacles/0/motion/sine/period: must be > 0") != std::string::npos);
  CHECK(motion_error(R"({ "sine": { "amplitude": [0.1, 0, 0], "period": -1 } })")
            .find("/obstacles/0/motion/sine/period: must be > 0") != std::string::npos);
  CHECK(motion_error(R"({ })").find("/obstacles/0/motion: give exactly one of") != std::string::npos);
  CHECK(motion_error(R"({ "keyframes": [] })").find("/obstacles/0/motion/keyframes: needs at least one") !=
        std::string::npos);
  CHECK(motion_error(R"({ "sine": { "amplitude": [1, 0, 0], "period": 1 }, "pivot": [0, 0, 0] })")
            .find("/obstacles/0/motion/pivot") != std::string::npos);
  CHECK(motion_error(R"({ "keyframes": [ { "time": 0, "spin": 1 } ] })").find("unknown key \"spin\"") !=
        std::string::npos);
  CHECK(test::scene_error(R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.1 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2],
                              "motion": { "sine": { "amplitude": [1, 0, 0], "period": 1 } } } ] } })")
            .find("/fluid/regions/0/motion: unknown key \"motion\"") != std::string::npos);
}

TEST_CASE("speed_bound bounds the speed of every point within reach") {
  const Motion m = keyframed_motion();
  const Vec3 centre(0.4, 0.4, 0.4);
  const Real reach = 0.5, bound = scene::speed_bound(m, centre, reach);
  Real fastest = 0;
  for (int k = 0; k <= 200; ++k) {
    const scene::MotionState s = scene::evaluate(m, 0.5 + 1.5 * k / 200, centre);
    for (int c = 0; c < 8; ++c) {
      const Vec3 X = centre + reach / std::sqrt(3.0) * Vec3(c & 1 ? 1 : -1, c & 2 ? 1 : -1, c & 4 ? 1 : -1);
      fastest = std::max(fastest, s.velocity_at(s.apply(X)).norm());
    }
  }
  CHECK(fastest > 0.2 * bound);
  CHECK(fastest <= bound);
  Motion sine;
  sine.type = Motion::Type::sine;
  sine.sine = {Vec3(0.3, 0.4, 0), 0.5, 0};
  CHECK(scene::speed_bound(sine, centre, reach) == doctest::Approx(0.5 * 2 * PI / 0.5));
}

TEST_CASE("a scene's motions are echoed by to_json and read back the same") {
  const std::string text = R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.1 },
    "obstacles": [ { "type": "box", "min": [0.2, 0.2, 0.2], "max": [0.4, 0.4, 0.4],
                     "motion": { "keyframes": [ { "time": 0.5, "rotate": [0, 0, 10] }, { "time": 1, "translate": [0.1, 0, 0] } ],
                                 "pivot": [0.3, 0.1, 0] } },
                   { "type": "sphere", "center": [0.6, 0.4, 0.4], "radius": 0.1,
                     "motion": { "sine": { "amplitude": [0, 0.05, 0], "period": 2, "phase": 1 } } },
                   { "type": "sphere", "center": [0.2, 0.6, 0.4], "radius": 0.1 } ] })";
  const scene::Scene a = scene::parse_scene(text, "t.json", "/scenes");
  const scene::Scene b = scene::parse_scene(scene::to_json(a), "t.json", "/scenes");
  REQUIRE(b.obstacles.size() == 3);
  CHECK(!b.obstacles[2].motion);
  REQUIRE(b.obstacles[0].motion);
  REQUIRE(b.obstacles[1].motion);
  const Motion &k = *b.obstacles[0].motion, &s = *b.obstacles[1].motion;
  REQUIRE(k.keyframes.size() == 2);
  CHECK(k.keyframes[0].time == 0.5);
  CHECK(k.keyframes[0].rotate == Vec3(0, 0, 10));
  CHECK(k.keyframes[1].translate == Vec3(0.1, 0, 0));
  CHECK(k.pivot == Vec3(0.3, 0.1, 0));
  CHECK(s.type == Motion::Type::sine);
  CHECK(s.sine.amplitude == Vec3(0, 0.05, 0));
  CHECK(s.sine.period == 2);
  CHECK(s.sine.phase == 1);
  CHECK(scene::fingerprint(a) == scene::fingerprint(b));
}
