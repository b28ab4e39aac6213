#include <algorithm>

#include "lib/checkpoint/format.hpp"
#include "lib/checkpoint/liquid.hpp"
#include "lib/checkpoint/solids.hpp"
#include "lib/checkpoint/values.hpp"
#include "lib/sim/cutcell/simulator.hpp"

// The cut-cell simulator's part of a checkpoint: sections SOLD, LIQD, REDU,
// SURF and PIEC (checkpoint/format.hpp; sim/snapshot.cpp writes the clock and
// the run's progress). The runtime types are written and read by their codecs
// in lib/checkpoint, which list what of each is stored: solid::Body and
// solid::ReducedState in checkpoint/solids.hpp, fluid::Liquid and its piece
// velocities in checkpoint/liquid.hpp. What is stored of the simulator itself,
// member by member; a member added to CutCellSimulator is state (written by
// save and read by restore below, or by a codec) or derived (rebuilt by the
// constructor or recomputed); tests/sim/cutcell/test_snapshot.cpp checks the
// struct size so the question cannot be missed.
//   CutCellSimulator  scene: not stored (the caller builds the simulator from
//                     the scene; its fingerprint is stored and compared).
//                     time, frame: stored by sim/snapshot.cpp.
//                     solids: SOLD (checkpoint/solids.hpp).
//                     liquid: LIQD, a presence flag then the liquid
//                     (checkpoint/liquid.hpp); its pieces in PIEC, written only
//                     when some split face carries them.
//                     reduced: REDU, per reduced body its name and
//                     ReducedState (checkpoint/solids.hpp), written only when
//                     the scene has reduced bodies (so other scenes'
//                     checkpoints are unchanged); the basis is rebuilt by the
//                     constructor (deterministic: same scene, same basis).
//                     surfaces: the moving bodies' vertices as the last stage
//                     4 saw them stored (section SURF, scenes with liquid and
//                     solids), since stage 2 of the next substep reads the
//                     surfaces and the cells' reach of that stage 4 (particle
//                     paths, sim/cutcell/particle_paths.hpp) and stage 6 may
//                     have moved the solids since (walls); restore re-runs
//                     stage 4's solid part on them. The rest is derived from
//                     the solids' x at stage 4 of every substep before stages
//                     5 and 6 read it; the obstacles' surfaces and `fixed`
//                     (static fields computed) are built by the constructor
//                     from the scene; static_fractions is recomputed from
//                     static_phi when empty.
//                     spd_workspace: not stored; the coupled solve's kept
//                     set-up gives the results of a fresh one bit for bit.
//                     probes, obstacle_surfaces: built by the constructor from
//                     the scene (probe sites, obstacle cut cells: static; a
//                     moving obstacle's placed at the restored time).
//                     flows: the zones are built by the constructor; the books
//                     (added, removed) in FLOW, written only for scenes with
//                     sources, drains or open sides.
//                     motions: built by the constructor from the scene; what
//                     moves is a function of time, placed at the restored
//                     time (sim/snapshot.cpp sets the clock before restore)
//                     before stage 4's solid part is re-run; driven pinned
//                     nodes are stored with their solid anyway.
//   scene::Coupling::Partitioned: in the scene (fingerprinted), not stored.

namespace fsicut::sim {
using checkpoint::throw_mismatch;

namespace {

void save_reduced(checkpoint::ByteWriter& w, const CutCellSimulator& state) {
  std::uint32_t count = 0;
  for (std::size_t b = 0; b < state.solids.size(); ++b) count += state.is_reduced(b) ? 1 : 0;
  w.u32(count);
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    if (state.is_reduced(b)) checkpoint::put(w, state.solids[b].name, state.reduced[b]->state);
}

void restore_reduced(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  const std::size_t count = static_cast<std::size_t>(
      std::count_if(state.reduced.begin(), state.reduced.end(), [](const auto& r) { return r.has_value(); }));
  const std::string where = checkpoint::section_where(file, checkpoint::SECTION_REDUCED);
  if (!s.has(checkpoint::SECTION_REDUCED)) {
    if (count > 0) throw_mismatch(where, "the scene has reduced solids, the checkpoint none");
    return;
  }
  checkpoint::ByteReader r = s.read(checkpoint::SECTION_REDUCED, file);
  const std::uint32_t stored = r.u32();
  if (count == 0 && stored > 0) throw_mismatch(where, "the checkpoint has reduced solids, the scene none");
  if (stored != count) throw_mismatch(where, "the number of reduced solids differs from the scene's");
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    if (state.is_reduced(b)) checkpoint::get(r, *state.reduced[b], state.solids[b].name);
  checkpoint::expect_end(r);
}

void restore_liquid(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  checkpoint::ByteReader r = s.read(checkpoint::SECTION_LIQUID, file);
  const bool stored = r.u8() != 0;
  if (stored != state.liquid.has_value())
    throw_mismatch(r.where(), stored ? "the checkpoint has liquid, the scene has none"
                                     : "the scene has liquid, the checkpoint none");
  if (stored) checkpoint::get(r, *state.liquid);
  checkpoint::expect_end(r);
}

// Stage 4's solid part on the vertices it last saw (without stored surfaces,
// on the stored x), then the solids back where they are.
void restore_solid_fields(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  if (!state.motions.empty()) place_moving(state, state.time);
  state.motions.placed.clear();
  if (!state.liquid || (state.solids.empty() && state.motions.obstacles.empty())) return;
  std::vector<Points> now;
  for (solid::Body& b : state.solids) now.push_back(b.x);
  if (s.has(checkpoint::SECTION_SURFACES)) {
    checkpoint::ByteReader r = s.read(checkpoint::SECTION_SURFACES, file);
    for (solid::Body& body : state.solids)
      checkpoint::get_points(r, body.x, body.num_nodes(), "solid \"" + body.name + "\" surface");
    checkpoint::expect_end(r);
  }
  update_solid_fields(state);
  for (std::size_t b = 0; b < state.solids.size(); ++b) state.solids[b].x = now[b];
}

// After restore_solid_fields: the split cells are those the pieces were
// computed for, which the codec checks them against.
void restore_pieces(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  if (!state.liquid) return;
  fluid::Liquid& l = *state.liquid;
  l.pieces.clear();
  if (!s.has(checkpoint::SECTION_PIECES)) return;
  checkpoint::ByteReader r = s.read(checkpoint::SECTION_PIECES, file);
  checkpoint::get(r, l.pieces, l.split);
  checkpoint::expect_end(r);
}

// The books of the sources, drains and open sides: written only for scenes
// that have them, so other scenes' checkpoints are unchanged.
void restore_flows(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  const bool flows = state.liquid && state.flows.any(state.liquid->open);
  state.flows.added = state.flows.removed = 0;
  if (!s.has(checkpoint::SECTION_FLOWS)) {
    if (flows)
      throw_mismatch(checkpoint::section_where(file, checkpoint::SECTION_FLOWS),
                     "the scene has sources, drains or open sides, the checkpoint none");
    return;
  }
  checkpoint::ByteReader r = s.read(checkpoint::SECTION_FLOWS, file);
  if (!flows) throw_mismatch(r.where(), "the checkpoint has sources, drains or open sides, the scene none");
  state.flows.added = r.f64();
  state.flows.removed = r.f64();
  checkpoint::expect_end(r);
}

}  // namespace

void CutCellSimulator::save(checkpoint::Snapshot& s) const {
  using checkpoint::ByteWriter;
  checkpoint::add_section(s, checkpoint::SECTION_SOLIDS, [&](ByteWriter& w) { checkpoint::put(w, solids); });
  checkpoint::add_section(s, checkpoint::SECTION_LIQUID, [&](ByteWriter& w) {
    w.u8(liquid ? 1 : 0);
    if (liquid) checkpoint::put(w, *liquid);
  });
  if (std::any_of(reduced.begin(), reduced.end(), [](const auto& r) { return r.has_value(); }))
    checkpoint::add_section(s, checkpoint::SECTION_REDUCED, [&](ByteWriter& w) { save_reduced(w, *this); });
  if (liquid && !solids.empty())
    checkpoint::add_section(s, checkpoint::SECTION_SURFACES, [&](ByteWriter& w) {
      for (std::size_t b = 0; b < solids.size(); ++b) checkpoint::put_points(w, surfaces.meshes[b].vertices());
    });
  if (liquid && !liquid->pieces.empty())
    checkpoint::add_section(s, checkpoint::SECTION_PIECES, [&](ByteWriter& w) { checkpoint::put(w, liquid->pieces); });
  if (liquid && flows.any(liquid->open))
    checkpoint::add_section(s, checkpoint::SECTION_FLOWS, [&](ByteWriter& w) {
      w.f64(flows.added);
      w.f64(flows.removed);
    });
}

void CutCellSimulator::restore(const checkpoint::Snapshot& snapshot, const std::string& file) {
  if (snapshot.has(checkpoint::SECTION_EULERIAN))
    throw_mismatch(checkpoint::section_where(file, checkpoint::SECTION_EULERIAN),
                   "it holds an Eulerian world and the scene none");
  checkpoint::ByteReader solids_section = snapshot.read(checkpoint::SECTION_SOLIDS, file);
  checkpoint::get(solids_section, solids);
  checkpoint::expect_end(solids_section);
  restore_reduced(snapshot, file, *this);
  restore_liquid(snapshot, file, *this);
  restore_solid_fields(snapshot, file, *this);
  restore_pieces(snapshot, file, *this);
  restore_flows(snapshot, file, *this);
}

}  // namespace fsicut::sim
