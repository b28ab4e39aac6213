// The Eulerian simulator's part of a checkpoint: section EULR
// (checkpoint/format.hpp). The world is written and read by its codec
// (checkpoint/eulerian_world.hpp, which lists what of it is stored); the
// surfaces' vertices and the frame tally, which the simulator keeps beside it,
// here. sim/eulerian/simulator.hpp says what is stored and what is rebuilt
// from the scene; a member added to EulerianTally or EulerianSurface is
// written by save_beside and read by restore_beside below.
#include "lib/checkpoint/eulerian_world.hpp"
#include "lib/checkpoint/format.hpp"
#include "lib/checkpoint/values.hpp"
#include "lib/sim/eulerian/simulator.hpp"

namespace fsicut::sim {
namespace {

std::vector<std::string> names(const std::vector<EulerianSurface>& surfaces) {
  std::vector<std::string> out;
  for (const EulerianSurface& s : surfaces) out.push_back(s.name);
  return out;
}

// u32 #surfaces, points each; the tally: i32 frame, i32 substeps, i64
// velocity, pressure and correction iterations, f64 divergence, i64 unknowns,
// constraints and contacts.
void save_beside(checkpoint::ByteWriter& w, const EulerianSimulator& e) {
  w.u32(static_cast<std::uint32_t>(e.surfaces.size()));
  for (const EulerianSurface& s : e.surfaces) checkpoint::put_points(w, s.vertices);
  const EulerianTally& t = e.tally;
  w.i32(t.frame);
  w.i32(t.substeps);
  for (const long v : {t.velocity_iterations, t.pressure_iterations, t.correction_iterations})
    w.u64(static_cast<std::uint64_t>(v));
  w.f64(t.divergence);
  w.u64(static_cast<std::uint64_t>(t.unknowns));
  w.u64(static_cast<std::uint64_t>(t.constraints));
  w.u64(static_cast<std::uint64_t>(t.contacts));
}

void restore_beside(checkpoint::ByteReader& r, EulerianSimulator& e) {
  const std::uint32_t surfaces = r.u32();
  if (surfaces > r.remaining()) r.fail("more surfaces than the data holds");
  if (surfaces != e.surfaces.size())
    checkpoint::throw_mismatch(r.where(), std::to_string(surfaces) + " surfaces in the checkpoint, " +
                                              std::to_string(e.surfaces.size()) + " in the scene");
  for (EulerianSurface& s : e.surfaces)
    checkpoint::get_points(r, s.vertices, s.vertices.cols(), "solid \"" + s.name + "\"'s surface");
  e.tally = EulerianTally{};
  EulerianTally& t = e.tally;
  t.frame = r.i32();
  t.substeps = r.i32();
  t.velocity_iterations = static_cast<long>(r.u64());
  t.pressure_iterations = static_cast<long>(r.u64());
  t.correction_iterations = static_cast<long>(r.u64());
  t.divergence = r.f64();
  t.unknowns = static_cast<Index>(r.u64());
  t.constraints = static_cast<Index>(r.u64());
  t.contacts = static_cast<long>(r.u64());
}

}  // namespace

// Format 5 has sections SOLD and LIQD in every checkpoint: an Eulerian scene's
// say "no Lagrangian solids, no liquid" (0 solids, flag 0).
void EulerianSimulator::save(checkpoint::Snapshot& snapshot) const {
  using checkpoint::ByteWriter;
  checkpoint::add_section(snapshot, checkpoint::SECTION_SOLIDS, [](ByteWriter& w) { w.u32(0); });
  checkpoint::add_section(snapshot, checkpoint::SECTION_LIQUID, [](ByteWriter& w) { w.u8(0); });
  checkpoint::add_section(snapshot, checkpoint::SECTION_EULERIAN, [&](ByteWriter& w) {
    checkpoint::put(w, world);
    save_beside(w, *this);
    checkpoint::put_plastic(w, world);
  });
}

void EulerianSimulator::restore(const checkpoint::Snapshot& snapshot, const std::string& file) {
  if (!snapshot.has(checkpoint::SECTION_EULERIAN))
    checkpoint::throw_mismatch(checkpoint::section_where(file, checkpoint::SECTION_EULERIAN),
                               "it holds no Eulerian world and the scene has one");
  checkpoint::ByteReader r = snapshot.read(checkpoint::SECTION_EULERIAN, file);
  const std::vector<std::string> solid_names = names(surfaces);
  checkpoint::get(r, world, solid_names);
  restore_beside(r, *this);
  checkpoint::get_plastic(r, world, solid_names);
  checkpoint::expect_end(r);
}

}  // namespace fsicut::sim
