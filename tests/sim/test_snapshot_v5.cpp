// Checkpoints of format version 5 written by an earlier fsicut, before the
// checkpoint wrote runtime types through codecs (tests/data/checkpoints/README.md
// says how each was made): each resumes into the simulator its scene builds,
// writing that state again gives every section byte for byte as the earlier
// fsicut wrote it, the restored state is a physical one (so no two fields
// came back swapped), and the simulation goes on from it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "lib/checkpoint/format.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/build.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/eulerian/simulator.hpp"
#include "lib/sim/snapshot.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;

namespace {

struct Written {
  const char* name;  // tests/data/checkpoints/v5/<name>
  const char* file;
  int frame;
  bool mid_frame;
  const char* tags;  // its sections in order
};

const Written WRITTEN[] = {
    {"cutcell", "checkpoint.0000.bin", 0, true, "META CLCK STAT SOLD LIQD REDU SURF MEAS PIEC "},
    {"xpm", "checkpoint.0000.bin", 0, true, "META CLCK STAT SOLD LIQD SURF MEAS PIEC "},
    {"eulerian", "checkpoint.0001.bin", 1, false, "META CLCK STAT SOLD LIQD EULR "},
};

std::string tags(const std::string& bytes) {
  std::string result;
  for (std::size_t at = 32; at < bytes.size();) {
    result += bytes.substr(at, 4) + " ";
    std::uint64_t size;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    at += 16 + size;
  }
  return result;
}

bool inside(const Points& x, const grid::MacGrid& g) {
  const Real slack = 1e-9;
  for (Index i = 0; i < x.cols(); ++i)
    if (!x.col(i).allFinite() || ((x.col(i) - g.origin).array() < -slack).any() ||
        ((x.col(i) - g.max()).array() > slack).any())
      return false;
  return true;
}

template <class T>
bool within(const grid::Array3<T>& a, T lo, T hi) {
  for (const T v : a.data())
    if (!(v >= lo && v <= hi)) return false;
  return true;
}

// What any state of a cut-cell run satisfies, whatever the simulation's
// numbers: particles and solids in the box, fractions in [0, 1], flags 0/1,
// the pressure 0 in air and within the hydrostatic range, the liquid SDF
// negative in liquid and bounded by the box, reduced frames rotations.
void check_physical(const sim::CutCellSimulator& s) {
  const fluid::Liquid& l = *s.liquid;
  const grid::MacGrid& g = l.grid;
  CHECK(inside(l.particles, g));
  for (const solid::Body& b : s.solids) {
    CAPTURE(b.name);
    CHECK(inside(b.x, g));
    CHECK(b.v.allFinite());
    CHECK(b.v.cwiseAbs().maxCoeff() < 10);
  }
  for (int a = 0; a < 3; ++a) {
    CHECK(within<Real>(l.fractions[a], 0, 1 + 1e-12));  // 1 up to round-off
    CHECK(within<char>(l.valid[a], 0, 1));
    CHECK(within<Real>(l.velocity[a], -10, 10));
  }
  // Pressures of the order of the hydrostatic one [Pa], distances of the box [m].
  const Real depth = g.max().y() - g.origin.y();
  CHECK(within<Real>(l.pressure, -0.5 * l.density * 9.81 * depth, 2 * l.density * 9.81 * depth));
  const auto& p = l.pressure.data();
  CHECK(*std::max_element(p.begin(), p.end()) > 0.1 * l.density * 9.81 * depth);
  int liquid = 0;
  for (Index n = 0; n < l.liquid_phi.count(); ++n) liquid += l.liquid_phi[n] < 0 ? 1 : 0;
  CHECK(liquid > 0);
  CHECK(liquid < l.liquid_phi.count());
  const Real diagonal = (g.max() - g.origin).norm();
  CHECK(within<Real>(l.liquid_phi, -diagonal, diagonal));
  CHECK(within<Real>(l.solid_phi, -diagonal, diagonal));
  for (std::size_t b = 0; b < s.solids.size(); ++b) {
    if (!s.is_reduced(b)) continue;
    const solid::ReducedState& r = s.reduced[b]->state;
    CHECK((r.R.transpose() * r.R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() < 1e-9);
    CHECK(r.R.determinant() > 0);
    CHECK(r.q.size() == s.reduced[b]->basis.modes());
  }
}

// The same for an Eulerian run: flags 0/1, each sample of F_p of det 1, the
// smoke density non-negative, the surfaces in the box.
void check_physical(const sim::EulerianSimulator& e) {
  const grid::MacGrid& g = e.world.grid;
  for (std::size_t l = 0; l < e.world.solids.size(); ++l) {
    const eulerian::EulerianSolid& s = e.world.solids[l];
    CAPTURE(l);
    for (const char v : s.valid) CHECK((v == 0 || v == 1));
    CHECK(s.u.allFinite());
    CHECK(s.v.cwiseAbs().maxCoeff() < 10);
    CHECK(inside(e.surfaces[l].vertices, g));
    if (!s.plastic) continue;
    bool flowed = false;
    for (const eulerian::Mat3& Fp : s.plastic->samples) {
      CHECK(Fp.determinant() == doctest::Approx(1).epsilon(1e-9));
      flowed = flowed || !Fp.isIdentity();
    }
    CHECK(flowed);
  }
  CHECK(within<Real>(e.world.smoke->density, 0, 10));
  CHECK(e.world.velocity.cwiseAbs().maxCoeff() < 10);
  CHECK(e.tally.frame == 0);
  CHECK(e.tally.substeps > 0);
}

}  // namespace

TEST_CASE("checkpoints of format 5 written by an earlier fsicut resume - and are written again byte for byte") {
  for (const Written& w : WRITTEN) {
    const std::string name = w.name;
    CAPTURE(name);
    test::ScratchDir dir("checkpoint-v5");
    const fs::path data = test::source_dir() / "tests/data/checkpoints/v5" / w.name;
    const std::string written = test::read_file(data / w.file);
    REQUIRE(written.size() > 32);
    CHECK(tags(written) == w.tags);
    fs::copy_file(data / w.file, dir / w.file);
    scene::Scene scene = scene::load_scene((data / "scene.json").string());
    scene.output.directory = dir.path().string();
    const std::unique_ptr<sim::Simulator> state = sim::build_simulator(scene);

    sim::RunProgress progress;
    const auto resumed = sim::resume_checkpoint(dir.path(), *state, progress, true);
    REQUIRE(resumed);
    WARN_MESSAGE(resumed->changed.empty(), "the scene's fingerprint changed since the checkpoint was written");
    CHECK(resumed->info.fsicut_version == "0.1.0");
    CHECK(state->frame == w.frame);
    CHECK(progress.mid_frame == w.mid_frame);
    CHECK(state->time == resumed->info.time);
    CHECK(!progress.stats.empty());

    // Every section of the earlier file, from the restored state.
    const checkpoint::Snapshot before = checkpoint::decode(written, w.file);
    const checkpoint::Snapshot again = sim::to_snapshot(*state, progress);
    CHECK(tags(checkpoint::encode(again)) == w.tags);
    CHECK(again.sections.size() == before.sections.size());
    for (const checkpoint::Section& section : before.sections) {
      CAPTURE(section.tag);
      const std::string* now = again.find(section.tag.c_str());
      REQUIRE(now);
      CHECK(now->size() == section.bytes.size());
      CHECK(*now == section.bytes);
    }

    if (const auto* c = dynamic_cast<const sim::CutCellSimulator*>(state.get())) check_physical(*c);
    if (const auto* e = dynamic_cast<const sim::EulerianSimulator*>(state.get())) check_physical(*e);

    // The run goes on from it to its next frame's end.
    const Real before_time = state->time;
    sim::advance_to(*state, sim::frame_end(*state, state->frame + 1));
    CHECK(state->time > before_time);
    if (const auto* c = dynamic_cast<const sim::CutCellSimulator*>(state.get())) {
      CHECK(inside(c->liquid->particles, c->liquid->grid));
      for (const solid::Body& b : c->solids) CHECK(b.x.allFinite());
    }
    if (const auto* e = dynamic_cast<const sim::EulerianSimulator*>(state.get())) CHECK(e->world.velocity.allFinite());
  }
}

TEST_CASE("a checkpoint of format 4 is refused with the version message") {
  const fs::path data = test::source_dir() / "tests/data/checkpoints/v5/cutcell/checkpoint.0000.bin";
  std::string older = test::read_file(data);
  const std::uint32_t four = 4;
  std::memcpy(&older[8], &four, 4);
  test::ScratchDir dir("checkpoint-v4");
  std::ofstream(dir / "checkpoint.0000.bin", std::ios::binary) << older;
  test::require_error<checkpoint::CorruptError>([&] { checkpoint::inspect(older, "old.bin"); },
                                                {"old.bin: checkpoint format version 4, this fsicut reads version 5"});
  // A resume skips it as unusable and finds nothing else.
  scene::Scene scene = scene::load_scene((data.parent_path() / "scene.json").string());
  scene.output.directory = dir.path().string();
  const std::unique_ptr<sim::Simulator> state = sim::build_simulator(scene);
  sim::RunProgress progress;
  CHECK_FALSE(sim::resume_checkpoint(dir.path(), *state, progress, false));
  CHECK(state->frame == 0);
  CHECK(state->time == 0);
}
