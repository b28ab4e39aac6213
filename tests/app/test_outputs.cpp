// The output files as DCCs load them: output/up_axis turns the VDB and the
// OBJs alike, and every OBJ names its solid.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "lib/io/vdb.hpp"
#include "tests/app/fixtures.hpp"
#include "tests/support.hpp"

namespace fsicut {
namespace {

// The `v` lines of an OBJ file.
std::vector<Vec3> obj_vertices(const std::string& text) { return test::read_obj(text).vertices; }

Vec3 to_z_up(const Vec3& p) { return {p.x(), -p.z(), p.y()}; }

// Writes `scene` to dir/scene.json and runs it with output/up_axis "y" into
// dir/y and "z" into dir/z.
void run_in_both_frames(const test::ScratchDir& dir, const std::string& scene) {
  std::ofstream(dir / "scene.json") << scene;
  for (const char* axis : {"y", "z"})
    REQUIRE(test::run_fsicut(dir, test::quoted((dir / "scene.json").string()) + " -q -o " +
                                      test::quoted((dir / axis).string()) + " --set /output/up_axis=\"" + axis + "\"")
                .code == 0);
}

}  // namespace

TEST_CASE("output/up_axis z writes the VDB and the OBJs rotated alike to Blender's frame - OBJs name their solid" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("outputs-up");
  run_in_both_frames(dir, R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 }, "time": { "frames": 0 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.25, 0.5] } ] },
      "solids": [ { "name": "crate", "mesh": { "type": "box", "min": [0.5, 0.5, 0.6], "max": [0.75, 0.875, 0.9], "cells": [1, 1, 1] } } ] })");
  const std::string y_obj = test::read_file(dir / "y" / "crate.0000.obj");
  const std::string z_obj = test::read_file(dir / "z" / "crate.0000.obj");
  CHECK(y_obj.find("\no crate\n") != std::string::npos);
  CHECK(z_obj.find("\no crate\n") != std::string::npos);
  const std::vector<Vec3> vy = obj_vertices(y_obj), vz = obj_vertices(z_obj);
  REQUIRE(vy.size() == 8);
  REQUIRE(vz.size() == vy.size());
  for (std::size_t i = 0; i < vy.size(); ++i) CHECK((vz[i] - to_z_up(vy[i])).norm() < 1e-12);

  // The liquid fills x < 1, y < 0.25, z < 0.5: inside at the simulated point,
  // and in the z-up file at its rotated image; the two files agree there.
  const Vec3 inside(0.5, 0.1, 0.25), outside(0.5, 0.6, 0.25);
  const Real y_in = io::sample_vdb(dir / "y" / "liquid.0000.vdb", inside);
  const Real z_in = io::sample_vdb(dir / "z" / "liquid.0000.vdb", to_z_up(inside));
  CHECK(y_in < 0);
  CHECK(z_in == doctest::Approx(y_in).epsilon(1e-5));
  CHECK(io::sample_vdb(dir / "z" / "liquid.0000.vdb", to_z_up(outside)) > 0);
  CHECK(io::sample_vdb(dir / "z" / "liquid.0000.vdb", inside) > 0);  // the unrotated point is not in the z-up liquid
  CHECK(io::read_vdb_info(dir / "z" / "liquid.0000.vdb").volume ==
        doctest::Approx(io::read_vdb_info(dir / "y" / "liquid.0000.vdb").volume).epsilon(0.01));
}

TEST_CASE("output/liquid_velocity writes the velocity grid v on the surface's band, turned with up_axis" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("outputs-v");
  run_in_both_frames(dir, R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 }, "time": { "frames": 0 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.25, 0.5], "velocity": [0, 0, 1] } ] },
      "output": { "liquid_velocity": true } })");
  // Just under the surface, mid-pool: the region's (0, 0, 1) m/s, and in the
  // z-up file (0, -1, 0) at the turned point.
  const Vec3 near_surface(0.5, 0.2, 0.25);
  const Vec3 vy = io::sample_vdb_vector(dir / "y" / "liquid.0000.vdb", io::LIQUID_VELOCITY_GRID_NAME, near_surface);
  const Vec3 vz =
      io::sample_vdb_vector(dir / "z" / "liquid.0000.vdb", io::LIQUID_VELOCITY_GRID_NAME, to_z_up(near_surface));
  CHECK((vy - Vec3(0, 0, 1)).norm() < 1e-6);
  CHECK((vz - Vec3(0, -1, 0)).norm() < 1e-6);
  // Without the key, no v grid.
  test::ScratchDir plain("outputs-no-v");
  REQUIRE(test::run_fsicut(plain, test::quoted((dir / "scene.json").string()) + " -q -o " +
                                      test::quoted((plain / "o").string()) + " --set /output/liquid_velocity=false")
              .code == 0);
  CHECK_THROWS_AS(io::sample_vdb_vector(plain / "o" / "liquid.0000.vdb", io::LIQUID_VELOCITY_GRID_NAME, near_surface),
                  Error);
}

TEST_CASE("output/liquid_particles writes the marker particles as a points grid in the output frame" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("outputs-particles");
  run_in_both_frames(dir, R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 }, "time": { "frames": 0 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.25, 0.5] } ] },
      "output": { "liquid_particles": true } })");
  // 8 particles per cell in the 8 x 2 x 4 liquid cells; their centroid is the
  // block's centre (jitter aside), turned in the z-up file.
  const io::VdbPoints y = io::read_vdb_points(dir / "y" / "liquid.0000.vdb", io::LIQUID_PARTICLES_GRID_NAME);
  const io::VdbPoints z = io::read_vdb_points(dir / "z" / "liquid.0000.vdb", io::LIQUID_PARTICLES_GRID_NAME);
  CHECK(y.count == 8 * 8 * 2 * 4);
  CHECK(z.count == y.count);
  const Vec3 centre(0.5, 0.125, 0.25);
  MESSAGE("particle centroid " << y.centroid.transpose() << " (block centre " << centre.transpose() << ")");
  CHECK((y.centroid - centre).norm() < 0.01);
  CHECK((z.centroid - to_z_up(y.centroid)).norm() < 1e-5);
}

TEST_CASE("solids/*/element quadratic: fsicut runs it and writes the refined surface, 4 flat triangles per face" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("outputs-quadratic");
  const std::string scene = R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 }, "time": { "frames": 2 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
      "solids": [ { "name": "crate", "element": "quadratic", "density": 500,
                    "mesh": { "type": "box", "min": [0.25, 0.375, 0.25], "max": [0.75, 0.75, 0.75], "cells": [1, 1, 1] } } ] })";
  std::ofstream(dir / "scene.json") << scene;
  REQUIRE(test::run_fsicut(dir, test::quoted((dir / "scene.json").string()) + " -q -o " +
                                    test::quoted((dir / "out").string()))
              .code == 0);
  for (const char* frame : {"0000", "0002"}) {
    CAPTURE(frame);
    const std::string obj = test::read_file(dir / "out" / (std::string("crate.") + frame + ".obj"));
    // One hex cell: 8 corners, 12 edge and 6 face-diagonal midpoints on the
    // surface; its 12 triangles split in 4 each.
    CHECK(obj_vertices(obj).size() == 26);
    std::size_t faces = 0;
    std::istringstream in(obj);
    for (std::string line; std::getline(in, line);) faces += line.rfind("f ", 0) == 0;
    CHECK(faces == 48);
  }
  // Frame 0: every vertex on the box's surface.
  for (const Vec3& p : obj_vertices(test::read_file(dir / "out" / "crate.0000.obj"))) {
    const Vec3 lo(0.25, 0.375, 0.25), hi(0.75, 0.75, 0.75);
    CHECK(((p - lo).cwiseAbs().minCoeff() < 1e-12 || (p - hi).cwiseAbs().minCoeff() < 1e-12));
  }

  std::ofstream(dir / "bad.json") << std::string(scene).replace(scene.find("\"quadratic\""), 11, "\"cubic\"");
  const test::RunResult bad = test::run_fsicut(dir, test::quoted((dir / "bad.json").string()) + " --validate");
  CHECK(bad.code == 65);
  CHECK(bad.err.find("/solids/0/element") != std::string::npos);
}

TEST_CASE("solids/*/model reduced: fsicut runs it end to end - OBJs - stats - the frequencies in --validate - a reduced body stays inside the walls" *
          doctest::test_suite("app")) {
  test::ScratchDir dir("outputs-reduced");
  // No liquid: a reduced block thrown at the floor and the x wall, beside a full one.
  const std::string scene = R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 }, "time": { "frames": 12 },
      "solids": [ { "name": "toy", "model": "reduced", "modes": 4, "density": 500, "youngs_modulus": 1e5,
                    "velocity": [2, -1, 0],
                    "mesh": { "type": "box", "min": [0.5, 0.25, 0.25], "max": [0.875, 0.5, 0.5], "cells": [3, 2, 2] } },
                  { "name": "crate", "density": 500,
                    "mesh": { "type": "box", "min": [0.125, 0.5, 0.5], "max": [0.375, 0.75, 0.75], "cells": [2, 2, 2] } } ] })";
  std::ofstream(dir / "scene.json") << scene;
  const test::RunResult validate = test::run_fsicut(dir, test::quoted((dir / "scene.json").string()) + " --validate");
  REQUIRE(validate.code == 0);
  CHECK(validate.out.find("reduced   toy: free frame, 4 modes (dense), frequencies [Hz]") != std::string::npos);
  REQUIRE(test::run_fsicut(dir, test::quoted((dir / "scene.json").string()) + " -q -o " +
                                    test::quoted((dir / "out").string()))
              .code == 0);
  // The full surface every frame, the same topology as the mesh's boundary (4 x 3 x 3 nodes).
  const std::size_t vertices = obj_vertices(test::read_file(dir / "out" / "toy.0000.obj")).size();
  CHECK(vertices == 4 * 3 * 3 - 2);
  for (const char* frame : {"0006", "0012"}) {
    CAPTURE(frame);
    const std::vector<Vec3> p = obj_vertices(test::read_file(dir / "out" / (std::string("toy.") + frame + ".obj")));
    CHECK(p.size() == vertices);
    for (const Vec3& x : p) CHECK((x.array() >= -1e-9).all());
    for (const Vec3& x : p) CHECK((x.array() <= 1 + 1e-9).all());
  }
  std::ifstream stats(dir / "out" / "stats.jsonl");
  std::string line, last;
  while (std::getline(stats, line)) last = line;
  const nlohmann::json j = nlohmann::json::parse(last);
  CHECK(j["solids"][0]["modes"] == 4);
  CHECK(j["solids"][0]["modal_energy"].get<double>() >= 0);
  CHECK(j["solids"][0]["linear_momentum"].size() == 3);
  CHECK_FALSE(j["solids"][1].contains("modes"));
  CHECK(j["solids"][1]["angular_momentum"].size() == 3);
}

}  // namespace fsicut
