// The eulerian scheme end to end through `fsicut`: the files it writes, the
// stats it records, --validate, and its refusals' exit codes.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/io/vdb.hpp"
#include "tests/app/fixtures.hpp"
#include "tests/support.hpp"

namespace fsicut {
namespace {

// A ball of radius 0.15 m falling in a 16 x 20 x 16 smoke box of 0.05 m
// cells with a smoke carpet on the floor (scenes/eulerian_ball.json, smaller).
const char* BALL_SCENE = R"({
  "grid": { "resolution": [16, 20, 16], "cell_size": 0.05 },
  "time": { "fps": 24, "frames": 3 },
  "fluid": { "kind": "smoke", "density": 1.2,
             "smoke": { "vorticity_confinement": 0.2,
                        "sources": [ { "min": [0.1, 0, 0.1], "max": [0.7, 0.1, 0.7] } ] } },
  "solids": [ { "name": "ball", "representation": "eulerian", "density": 1200, "youngs_modulus": 5e4,
                "mesh": { "type": "sphere", "center": [0.4, 0.6, 0.4], "radius": 0.15, "subdivisions": 2 } } ],
  "coupling": { "scheme": "eulerian" } })";

using test::Obj;
using test::read_obj;

Vec3 centre(const Obj& o) {
  Vec3 c = Vec3::Zero();
  for (const Vec3& v : o.vertices) c += v;
  return c / static_cast<Real>(o.vertices.size());
}

}  // namespace

TEST_CASE("fsicut runs an Eulerian ball in smoke: its OBJs, smoke VDBs and stats" * doctest::test_suite("app")) {
  test::ScratchDir dir("eulerian-ball");
  std::ofstream(dir / "ball.json") << BALL_SCENE;
  const test::RunResult r =
      test::run_fsicut(dir, test::quoted((dir / "ball.json").string()) + " -q -o " + test::quoted((dir / "out").string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::vector<Obj> frames;
  for (int f = 0; f <= 3; ++f) {
    const std::string n = "000" + std::to_string(f);
    REQUIRE(std::filesystem::exists(dir / "out" / ("ball." + n + ".obj")));
    REQUIRE(std::filesystem::exists(dir / "out" / ("smoke." + n + ".vdb")));
    frames.push_back(read_obj(test::read_file(dir / "out" / ("ball." + n + ".obj"))));
  }
  // The same vertices and faces every frame, moving down with the ball.
  for (const Obj& o : frames) {
    CHECK(o.vertices.size() == 162);
    CHECK(o.faces == frames[0].faces);
  }
  CHECK((centre(frames[0]) - Vec3(0.4, 0.6, 0.4)).norm() < 1e-9);
  CHECK(centre(frames[3]).y() < centre(frames[2]).y());
  CHECK(centre(frames[2]).y() < centre(frames[1]).y());
  CHECK(centre(frames[1]).y() < centre(frames[0]).y());
  // The smoke: a fog volume `density`, one voxel per cell centred on it.
  const io::VdbInfo info = io::read_vdb_info(dir / "out" / "smoke.0000.vdb");
  CHECK(info.name == "density");
  CHECK(info.grid_class == "fog volume");
  CHECK(info.voxel_size == doctest::Approx(0.05));
  CHECK(info.active_voxels == 12 * 2 * 12);
  CHECK(io::sample_vdb(dir / "out" / "smoke.0000.vdb", Vec3(0.225, 0.025, 0.325)) == doctest::Approx(1));
  CHECK(io::sample_vdb(dir / "out" / "smoke.0000.vdb", Vec3(0.225, 0.525, 0.325)) == doctest::Approx(0));
  // stats.jsonl: the solid's measures and the solves, frame by frame.
  std::istringstream stats(test::read_file(dir / "out" / "stats.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(stats, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 4);
  const Real v0 = lines[0]["solids"][0]["volume"].get<Real>();
  for (const nlohmann::json& j : lines) {
    const nlohmann::json& b = j["solids"][0];
    CHECK(b["name"] == "ball");
    CHECK_FALSE(b.contains("plastic_strain"));  // an elastic solid's stats keep their keys
    CHECK(std::abs(b["volume"].get<Real>() / v0 - 1) < 0.01);
    CHECK(j["eulerian"]["divergence"].get<Real>() <= 0.02 + 1e-12);
    CHECK(j["solver"]["converged"] == true);
  }
  CHECK(lines[3]["solids"][0]["mean_velocity"][1].get<Real>() < -1.0);  // about g t = -1.23 m/s
  CHECK(lines[3]["eulerian"]["pressure_iterations"].get<int>() > 0);
}

TEST_CASE("fsicut --resume continues an Eulerian scene bit-identical to an uninterrupted run" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("eulerian-resume");
  std::ofstream(dir / "ball.json") << BALL_SCENE;
  const std::string scene = test::quoted((dir / "ball.json").string());
  REQUIRE(test::run_fsicut(dir, scene + " -q --frames 6 -o " + test::quoted((dir / "whole").string())).code == 0);
  REQUIRE(test::run_fsicut(dir, scene + " -q --frames 3 -o " + test::quoted((dir / "parts").string())).code == 0);
  const test::RunResult resumed =
      test::run_fsicut(dir, scene + " -q --frames 6 --resume -o " + test::quoted((dir / "parts").string()));
  INFO(resumed.err);
  REQUIRE(resumed.code == 0);
  for (int f = 0; f <= 6; ++f)
    for (const std::string stem : {"ball.000", "smoke.000"}) {
      const std::string name = stem + std::to_string(f) + (stem == "ball.000" ? ".obj" : ".vdb");
      INFO(name);
      const std::string whole = test::read_file(dir / "whole" / name);
      CHECK(!whole.empty());
      CHECK(whole == test::read_file(dir / "parts" / name));
    }
  // The stats lines agree but for the wall times (`seconds`, `eulerian/seconds`).
  std::istringstream a(test::read_file(dir / "whole" / "stats.jsonl")), b(test::read_file(dir / "parts" / "stats.jsonl"));
  int lines = 0;
  for (std::string la, lb; std::getline(a, la) && std::getline(b, lb); ++lines) {
    nlohmann::json ja = nlohmann::json::parse(la), jb = nlohmann::json::parse(lb);
    for (nlohmann::json* j : {&ja, &jb}) {
      j->erase("seconds");
      (*j)["eulerian"].erase("seconds");
    }
    CHECK(ja == jb);
  }
  CHECK(lines == 7);
}

TEST_CASE("fsicut --resume continues a plastic Eulerian scene bit-identical, its F_p in the checkpoint" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("eulerian-plastic-resume");
  std::ofstream(dir / "ball.json") << BALL_SCENE;
  // A yield strain the falling ball passes in its first frame.
  const std::string scene = test::quoted((dir / "ball.json").string()) + " --set /solids/0/plasticity/yield=0.0005";
  REQUIRE(test::run_fsicut(dir, scene + " -q --frames 4 -o " + test::quoted((dir / "whole").string())).code == 0);
  REQUIRE(test::run_fsicut(dir, scene + " -q --frames 2 -o " + test::quoted((dir / "parts").string())).code == 0);
  const test::RunResult resumed =
      test::run_fsicut(dir, scene + " -q --frames 4 --resume -o " + test::quoted((dir / "parts").string()));
  INFO(resumed.err);
  REQUIRE(resumed.code == 0);
  for (int f = 0; f <= 4; ++f) {
    const std::string name = "ball.000" + std::to_string(f) + ".obj";
    INFO(name);
    const std::string whole = test::read_file(dir / "whole" / name);
    CHECK(!whole.empty());
    CHECK(whole == test::read_file(dir / "parts" / name));
  }
  std::istringstream a(test::read_file(dir / "whole" / "stats.jsonl")), b(test::read_file(dir / "parts" / "stats.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string la, lb; std::getline(a, la) && std::getline(b, lb);) {
    nlohmann::json ja = nlohmann::json::parse(la), jb = nlohmann::json::parse(lb);
    for (nlohmann::json* j : {&ja, &jb}) {
      j->erase("seconds");
      (*j)["eulerian"].erase("seconds");
    }
    CHECK(ja == jb);
    lines.push_back(ja);
  }
  REQUIRE(lines.size() == 5);
  CHECK(lines[0]["solids"][0]["plastic_strain"].get<Real>() == 0);
  CHECK(lines[2]["solids"][0]["plastic_strain"].get<Real>() > 0);
}

// An inflow (a smoke source with a velocity) prescribes the velocity on its
// box's nodes whatever is there, smoke or solid. Where it covers whole cells
// of a solid, those cells have no unknown corner and no row in Eq. 12; their
// drift used to be written to b[-1] (heap corruption, SIGABRT; issue #60).
TEST_CASE("a smoke inflow over cells of an Eulerian solid holds the material it covers - no crash" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("eulerian-inflow-over-solid");
  std::ofstream(dir / "ball.json") << BALL_SCENE;
  const std::string scene = test::quoted((dir / "ball.json").string());
  // A still inflow inside the ball (its centre 0.4, 0.6, 0.4, radius 0.15)
  // and one over the whole box: the ball is held where a free one falls
  // 7.7 cm in 3 frames (g t^2 / 2).
  struct Case {
    std::string box;  // the source's "min" and "max"
    Real held;        // bound on the ball's centre's motion [m]
  };
  const Case cases[] = {{R"("min": [0.3, 0.5, 0.3], "max": [0.5, 0.7, 0.5])", 0.05},
                        {R"("min": [0, 0, 0], "max": [0.8, 1, 0.8])", 1e-9}};
  for (const Case& c : cases) {
    CAPTURE(c.box);
    const std::string out = (dir / "out").string();
    std::filesystem::remove_all(out);
    const test::RunResult r = test::run_fsicut(dir, scene + " -q -o " + test::quoted(out) +
                                                        " --set '/fluid/smoke/sources/0={" + c.box +
                                                        R"(, "velocity": [0, 0, 0]}')");
    INFO(r.err);
    REQUIRE(r.code == 0);
    for (const auto& entry : std::filesystem::directory_iterator(out))
      CHECK(entry.path().filename().string().front() != '.');  // no temporary left
    const Obj first = read_obj(test::read_file(dir / "out" / "ball.0000.obj"));
    const Obj last = read_obj(test::read_file(dir / "out" / "ball.0003.obj"));
    MESSAGE("the ball's centre moved " << (centre(last) - centre(first)).norm() << " m");
    CHECK((centre(last) - centre(first)).norm() < c.held);
  }
}

TEST_CASE("an Eulerian solve that stops short exits 70 naming the keys that bound it and the frame" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("eulerian-unconverged");
  std::ofstream(dir / "ball.json") << BALL_SCENE;
  const test::RunResult r = test::run_fsicut(dir, test::quoted((dir / "ball.json").string()) + " -q -o " +
                                                      test::quoted((dir / "out").string()) +
                                                      " --set /coupling/max_iterations=3");
  INFO(r.err);
  CHECK(r.code == 70);
  CHECK(test::contains(r.err, "the velocity (Eq. 8) solve did not converge"));
  CHECK(test::contains(r.err, "coupling/max_iterations and coupling/eulerian/velocity_tolerance"));
  CHECK(test::contains(r.err, "(frame 1, the substep from t = 0 s)"));
}

TEST_CASE("fsicut --validate accepts an Eulerian scene and refuses a bad one with exit 65 and its pointer" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("eulerian-validate");
  std::ofstream(dir / "ball.json") << BALL_SCENE;
  const test::RunResult ok = test::run_fsicut(dir, test::quoted((dir / "ball.json").string()) + " --validate");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("eulerian  ball: mass") != std::string::npos);
  CHECK(ok.out.find("fluid     smoke") != std::string::npos);
  CHECK(ok.out.find("coupling  eulerian, pressure tolerance 0.02, velocity tolerance 0.001, semi_implicit") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
  const std::string scene = (dir / "ball.json").string();
  const std::pair<std::string, std::string> refused[] = {
      {"--set /coupling/eulerian/solver=gmres", "ball.json: /coupling/eulerian/solver: unknown solver \"gmres\""},
      {"--set /solids/0/plasticity/yield=-1", "ball.json: /solids/0/plasticity/yield: must be >= 0"},
      {"--set /fluid/kind=liquid", "ball.json: /fluid/smoke: applies to"},
      {"--set /coupling/scheme=spd", "ball.json: /fluid/kind: \"smoke\" needs"},
      {"--set /solids/0/element=quadratic", "ball.json: /solids/0/element: makes no sense"},
      // The cut-cell solve's keys, which the Eulerian step used to ignore.
      {"--set /coupling/sigma=0.5", "ball.json: /coupling/sigma: makes no sense with \"scheme\": \"eulerian\""},
      {"--set /coupling/allow_unconverged=true", "ball.json: /coupling/allow_unconverged: makes no sense"},
      {"--set /coupling/partitioned/relaxation=0.5", "ball.json: /coupling/partitioned: makes no sense"},
      {"--set /fluid/density_correction=false", "ball.json: /fluid/density_correction: makes no sense with \"kind\""},
      // A ball a fifth of a cell across: the grid held 0 of it, and frame 0 stopped with "rest 0 m^3".
      {"--set /solids/0/mesh/radius=0.005", "ball.json: /solids/0/mesh: solid \"ball\" is too small for the grid"},
  };
  for (const auto& [set, message] : refused) {
    const test::RunResult r = test::run_fsicut(dir, test::quoted(scene) + " --validate " + set);
    INFO(set << ": " << r.err);
    CHECK(r.code == 65);
    CHECK(r.err.find(message) != std::string::npos);
  }
}

}  // namespace fsicut
