// A frame's output files (lib/sim/frame_output.hpp): their names, the files
// write_frame writes and the digests it returns, the OBJ's vertices and
// triangles, the output frame of output/up_axis and the liquid VDB's voxel
// size, on frames captured by the cut-cell simulator as fsicut captures them.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/io/atomic.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/frame_output.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using test::ScratchDir;

namespace {

// Water in the lower corner of an 8^3 grid of 0.125 m cells and a box of 2^3
// cells (27 nodes, 26 of them on its surface, 48 boundary triangles) above it;
// `output` is the output object.
sim::CutCellSimulator water_and_box(const std::string& output = "{}") {
  return sim::CutCellSimulator(scene::parse_scene(R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.25, 0.5] } ] },
    "solids": [ { "name": "cube", "mesh": { "type": "box", "min": [0.25, 0.5, 0.25], "max": [0.75, 0.75, 0.5],
                  "cells": [2, 2, 2] }, "density": 500, "youngs_modulus": 1e5 } ],
    "output": )" + output + "}",
                                                  "test.json", "."));
}

// The "v" and "f" lines of an OBJ file.
struct ObjLines {
  std::vector<Vec3> vertices;
  std::vector<std::array<long, 3>> faces;
};
ObjLines read_obj(const std::filesystem::path& path) {
  ObjLines obj;
  std::istringstream in(test::read_file(path));
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string tag;
    fields >> tag;
    if (tag == "v") {
      Vec3 v;
      fields >> v[0] >> v[1] >> v[2];
      obj.vertices.push_back(v);
    } else if (tag == "f") {
      std::array<long, 3> f{};
      fields >> f[0] >> f[1] >> f[2];
      obj.faces.push_back(f);
    }
  }
  return obj;
}

bool has_point(const Points& points, const Vec3& p) {
  for (Index i = 0; i < points.cols(); ++i)
    if ((points.col(i) - p).norm() < 1e-12) return true;
  return false;
}

}  // namespace

TEST_CASE("frame output: numbered pads to 4 digits and grows past them") {
  CHECK(sim::numbered("liquid", 0, ".vdb") == "liquid.0000.vdb");
  CHECK(sim::numbered("liquid", 7, ".vdb") == "liquid.0007.vdb");
  CHECK(sim::numbered("cube", 9999, ".obj") == "cube.9999.obj");
  CHECK(sim::numbered("cube", 12345, ".obj") == "cube.12345.obj");
  CHECK(sim::numbered("", 3, "") == ".0003");
}

TEST_CASE("frame output: file_names lists the liquid - the solids in order - the smoke") {
  sim::FrameOutput out;
  out.frame = 42;
  CHECK(sim::file_names(out).empty());
  out.solids.push_back({"b", Points(3, 0), {}});
  out.solids.push_back({"a", Points(3, 0), {}});
  out.liquid.emplace();
  out.smoke.emplace();
  CHECK(sim::file_names(out) == std::vector<std::string>{"liquid.0042.vdb", "b.0042.obj", "a.0042.obj",
                                                          "smoke.0042.vdb"});
  // What a simulator says it writes is what its captured frame writes.
  const sim::CutCellSimulator s = water_and_box();
  CHECK(sim::file_names(s.capture_frame()) == s.frame_file_names(0));
  CHECK(s.frame_file_names(3) == std::vector<std::string>{"liquid.0003.vdb", "cube.0003.obj"});
  const sim::CutCellSimulator solids_only = water_and_box(R"({ "liquid": false })");
  CHECK(solids_only.frame_file_names(1) == std::vector<std::string>{"cube.0001.obj"});
  CHECK(sim::file_names(solids_only.capture_frame()) == solids_only.frame_file_names(0));
}

TEST_CASE("frame output: write_frame writes every file - the digests it returns are the files'") {
  ScratchDir dir("frame-output");
  sim::CutCellSimulator s = water_and_box();
  s.frame = 12;
  const sim::FrameOutput out = s.capture_frame();
  const std::map<std::string, io::FileDigest> written = sim::write_frame(out, dir.path());
  std::vector<std::string> names;
  for (const auto& [name, digest] : written) {
    CAPTURE(name);
    names.push_back(name);
    const std::optional<io::FileDigest> on_disk = io::digest_file(dir / name);
    REQUIRE(on_disk);
    CHECK(*on_disk == digest);
    CHECK(on_disk->size > 0);
  }
  const std::vector<std::string> expected = sim::file_names(out);
  CHECK(std::set<std::string>(names.begin(), names.end()) ==
        std::set<std::string>(expected.begin(), expected.end()));
  CHECK(names.size() == 2);
  // Nothing else in the folder: no temporaries left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 2);
}

TEST_CASE("frame output: the OBJ holds the solid's surface vertices and its boundary triangles") {
  ScratchDir dir("frame-output");
  const sim::CutCellSimulator s = water_and_box(R"({ "liquid": false })");
  const sim::FrameOutput out = s.capture_frame();
  REQUIRE(out.solids.size() == 1);
  const sim::SolidOutput& cube = out.solids[0];
  CHECK(cube.vertices.cols() == 27);
  CHECK(cube.triangles.size() == 48);  // 6 faces of 2 x 2 squares, 2 triangles each
  sim::write_frame(out, dir.path());
  const ObjLines obj = read_obj(dir / "cube.0000.obj");
  CHECK(obj.vertices.size() == 26);  // the centre node is inside
  REQUIRE(obj.faces.size() == 48);
  for (const auto& f : obj.faces)
    for (long v : f) CHECK((v >= 1 && v <= 26));
  // Every vertex written is a node of the solid, and the corners are among them.
  for (const Vec3& v : obj.vertices) CHECK(has_point(cube.vertices, v));
  for (const Vec3& corner : {Vec3(0.25, 0.5, 0.25), Vec3(0.75, 0.75, 0.5)}) {
    bool found = false;
    for (const Vec3& v : obj.vertices) found = found || (v - corner).norm() < 1e-12;
    CHECK(found);
  }
}

TEST_CASE("frame output: a non-finite vertex is a SimulationError and leaves no file") {
  ScratchDir dir("frame-output");
  sim::FrameOutput out = water_and_box(R"({ "liquid": false })").capture_frame();
  out.solids[0].vertices(1, 0) = std::numeric_limits<Real>::quiet_NaN();
  test::require_error<SimulationError>([&] { sim::write_frame(out, dir.path()); }, {"cube.0000.obj", "non-finite"});
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("frame output: up_axis z writes y-up positions as z-up - x y z becomes x -z y") {
  const sim::CutCellSimulator y_up = water_and_box();
  const sim::CutCellSimulator z_up = water_and_box(R"({ "up_axis": "z" })");
  CHECK(sim::up_axis(y_up.scene) == io::UpAxis::y);
  CHECK(sim::up_axis(z_up.scene) == io::UpAxis::z);
  const sim::FrameOutput a = y_up.capture_frame(), b = z_up.capture_frame();
  CHECK(a.up == io::UpAxis::y);
  CHECK(b.up == io::UpAxis::z);
  // The cube's top corner (0.75, 0.75, 0.5): 0.75 m up in y, so 0.75 m up in z.
  CHECK(has_point(a.solids[0].vertices, Vec3(0.75, 0.75, 0.5)));
  CHECK(has_point(b.solids[0].vertices, Vec3(0.75, -0.5, 0.75)));
  CHECK_FALSE(has_point(b.solids[0].vertices, Vec3(0.75, 0.75, 0.5)));
  // The highest output coordinate is the up axis's.
  CHECK(a.solids[0].vertices.row(1).maxCoeff() == doctest::Approx(0.75));
  CHECK(b.solids[0].vertices.row(2).maxCoeff() == doctest::Approx(0.75));
  // The particles turn the same way (seeding does not depend on output keys).
  REQUIRE(a.liquid);
  REQUIRE(b.liquid);
  REQUIRE(a.liquid->particles.cols() == b.liquid->particles.cols());
  REQUIRE(a.liquid->particles.cols() > 0);
  for (Index p = 0; p < a.liquid->particles.cols(); p += 17) {
    const Vec3 x = a.liquid->particles.col(p);
    CHECK(b.liquid->particles.col(p) == Vec3(x[0], -x[2], x[1]));
  }
  // And so does the file.
  ScratchDir dir("frame-output");
  sim::write_frame(b, dir.path());
  const ObjLines obj = read_obj(dir / "cube.0000.obj");
  bool found = false;
  for (const Vec3& v : obj.vertices) found = found || (v - Vec3(0.75, -0.5, 0.75)).norm() < 1e-12;
  CHECK(found);
}

TEST_CASE("frame output: the liquid VDB's voxel is half a cell unless output/voxel_size sets it") {
  const sim::CutCellSimulator plain = water_and_box();
  CHECK(sim::vdb_voxel_size(plain.scene) == 0.0625);
  REQUIRE(plain.capture_frame().liquid);
  CHECK(plain.capture_frame().liquid->voxel_size == 0.0625);
  const sim::CutCellSimulator set = water_and_box(R"({ "voxel_size": 0.03 })");
  CHECK(sim::vdb_voxel_size(set.scene) == 0.03);
  CHECK(set.capture_frame().liquid->voxel_size == 0.03);
  // A finer voxel writes a larger VDB of the same particles.
  ScratchDir dir_a("frame-output"), dir_b("frame-output");
  const auto a = sim::write_frame(plain.capture_frame(), dir_a.path());
  const auto b = sim::write_frame(set.capture_frame(), dir_b.path());
  CHECK(b.at("liquid.0000.vdb").size > a.at("liquid.0000.vdb").size);
}
