#include <algorithm>

#include "lib/checkpoint/format.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/solid/corotation.hpp"

// The cut-cell simulator's part of a checkpoint (sim/snapshot.hpp has the
// rest). What is stored, member by member. When a member is added to one of
// these structs, decide here whether it is state (store it:
// checkpoint/snapshot.hpp, checkpoint/format.hpp, bump FORMAT_VERSION) or
// derived (rebuilt by the constructor or recomputed);
// tests/sim/test_snapshot checks the struct sizes so the question cannot be
// missed.
//   CutCellSimulator scene: not stored (the caller builds the simulator from
//                          the scene; its fingerprint is stored and compared)
//                   solids, liquid: below; time, frame: stored (sim/snapshot.cpp)
//                   reduced: the ReducedState of each reduced body (R, T, q,
//                          v, omega, qdot) stored in section REDU, written only
//                          when the scene has reduced bodies (so other scenes'
//                          checkpoints are unchanged); its basis is rebuilt by
//                          the constructor (deterministic: same scene, same basis)
//                   surfaces: the moving bodies' vertices as the last stage 4
//                          saw them stored (section SURF, scenes with liquid
//                          and solids), since stage 2 of the next substep reads
//                          the surfaces and the cells' reach of that stage 4
//                          (particle paths, sim/particle_paths.hpp) and stage 6 may
//                          have moved the solids since (walls); restore re-runs
//                          stage 4's solid part on them. The rest is derived
//                          from the solids' x at stage 4 of every substep
//                          before stages 5 and 6 read it; the obstacles'
//                          surfaces and `fixed` (static fields computed) are
//                          built by the constructor from the scene;
//                          static_fractions is recomputed from static_phi
//                          when empty
//                   spd_workspace: not stored; the coupled solve's kept
//                          set-up gives the results of a fresh one bit for bit
//                   probes, obstacle_surfaces: built by the constructor from the
//                          scene (probe sites, obstacle cut cells: static)
//   solid::Body     x, v: stored. R: recomputed from x (update_rotations).
//                   name: stored and checked. Everything else (mesh, material,
//                   mass, pinned, dofs, rest_volume, Dm_inv, K0, K0q, layouts) is
//                   built from the scene. velocity_solver: not stored, set up
//                   again on the first solve (its ordering depends on the
//                   layout only, so the resumed run's factors are the same).
//   fluid::Liquid   particles, velocity, pressure, liquid_phi, static_phi,
//                   solid_phi, fractions, valid: stored. particle_radius, particle_volume:
//                   stored and checked. grid, density, gravity, solid,
//                   projection, extrapolation_layers: built from the scene.
//                   scratch: not stored, a workspace every stage overwrites
//                   before reading (fluid/velocity.cpp copy_into). reach: not
//                   stored, derived from the solids at stage 4 of every substep
//                   (sim/solid_fields.cpp update_solid_fields) before anything reads it;
//                   split likewise. region_pressure: not stored, written by
//                   every projection and never read before it (a split cell's
//                   further regions start from the cell's stored pressure).
//                   pieces: stored in the optional section PIEC (stage 2 of
//                   the next substep reads them with the split cells the
//                   restore derives again, which it checks them against).
//   sim::FrameStats frame, time, substeps, cfl_exceeded, solver (every member
//                   of linsolve::Report), solves, seconds, partitioned (every
//                   member of coupling::PartitionedReport, when present):
//                   stored (mid-frame checkpoints). probe_rows, loads (the
//                   load sums and their seconds): stored in the optional
//                   section MEAS, with RunProgress::probes (the probes.csv
//                   text), only when there is something to store, so other
//                   scenes' checkpoints are unchanged and older ones still read
//                   (no FORMAT_VERSION bump: a reader skips sections it does
//                   not know).
//   scene::Coupling::Partitioned: in the scene (fingerprinted), not stored.

namespace fsicut::sim {
using checkpoint::section_where;
using checkpoint::throw_mismatch;

namespace {

checkpoint::ReducedRecord reduced_record(const std::string& name, const solid::ReducedState& s) {
  checkpoint::ReducedRecord r;
  r.name = name;
  r.R = s.R;
  r.T = s.T;
  r.v = s.v;
  r.omega = s.omega;
  r.q.assign(s.q.data(), s.q.data() + s.q.size());
  r.qdot.assign(s.qdot.data(), s.qdot.data() + s.qdot.size());
  return r;
}

template <class T>
checkpoint::Array3Data<T> array_data(const grid::Array3<T>& a) {
  return {a.size(), a.data()};
}

checkpoint::LiquidRecord liquid_record(const fluid::Liquid& l) {
  checkpoint::LiquidRecord r;
  r.particle_radius = l.particle_radius;
  r.particle_volume = l.particle_volume;
  r.particles = l.particles;
  for (int a = 0; a < 3; ++a) r.velocity[a] = array_data(l.velocity[a]);
  r.pressure = array_data(l.pressure);
  r.liquid_phi = array_data(l.liquid_phi);
  r.static_phi = array_data(l.static_phi);
  r.solid_phi = array_data(l.solid_phi);
  for (int a = 0; a < 3; ++a) r.fractions[a] = array_data(l.fractions[a]);
  for (int a = 0; a < 3; ++a) r.valid[a] = array_data(l.valid[a]);
  return r;
}

// Node positions or velocities of a body whose node count the scene fixes.
void restore_points(const Points& from, Points& to, Index nodes, const std::string& where, const std::string& name) {
  if (from.cols() != nodes)
    throw_mismatch(where, name + " has " + std::to_string(from.cols()) + " nodes in the checkpoint, " +
                              std::to_string(nodes) + " in the scene");
  to = from;
}

// An empty array (static_phi before it is first computed) fits any grid;
// otherwise the grid must be the one the scene builds.
template <class T>
void restore_array(const checkpoint::Array3Data<T>& from, grid::Array3<T>& to, const std::string& where,
                   const std::string& name) {
  if (from.size != to.size() && to.count() != 0 && from.size.prod() != 0)
    throw_mismatch(where, name + " is " + checkpoint::shape_text(from.size) + ", the scene's grid needs " +
                              checkpoint::shape_text(to.size()));
  to.resize(from.size);
  std::copy(from.values.begin(), from.values.end(), to.data().begin());
}

void restore_solids(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  if (s.solids.size() != state.solids.size())
    throw_mismatch(file, std::to_string(s.solids.size()) + " solids in the checkpoint, " +
                             std::to_string(state.solids.size()) + " in the scene");
  const std::string where = section_where(file, checkpoint::SECTION_SOLIDS);
  for (std::size_t i = 0; i < s.solids.size(); ++i) {
    const checkpoint::SolidRecord& from = s.solids[i];
    solid::Body& b = state.solids[i];
    if (from.name != b.name)
      throw_mismatch(file, "solid \"" + from.name + "\" in the checkpoint where the scene has \"" + b.name + "\"");
    restore_points(from.x, b.x, b.num_nodes(), where, "solid \"" + from.name + "\" positions");
    restore_points(from.v, b.v, b.num_nodes(), where, "solid \"" + from.name + "\" velocities");
    // Rotations are a function of the positions: recompute, exactly as the
    // step that produced x did (solid::update_positions).
    solid::update_rotations(b);
  }
}

void restore_reduced(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  const std::size_t count = static_cast<std::size_t>(
      std::count_if(state.reduced.begin(), state.reduced.end(), [](const auto& r) { return r.has_value(); }));
  if (count == 0) {
    if (!s.reduced.empty()) throw_mismatch(file, "the checkpoint has reduced solids, the scene none");
    return;
  }
  if (s.reduced.empty()) throw_mismatch(file, "the scene has reduced solids, the checkpoint none");
  if (s.reduced.size() != count) throw_mismatch(file, "the number of reduced solids differs from the scene's");
  std::size_t next = 0;
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!state.is_reduced(b)) continue;
    const checkpoint::ReducedRecord& from = s.reduced[next++];
    solid::ReducedBody& body = *state.reduced[b];
    if (from.name != state.solids[b].name)
      throw_mismatch(file, "reduced solid \"" + from.name + "\" in the checkpoint where the scene has \"" +
                               state.solids[b].name + "\"");
    solid::ReducedState& r = body.state;
    r.R = from.R;
    r.T = from.T;
    r.v = from.v;
    r.omega = from.omega;
    const std::size_t modes = from.q.size();
    if (static_cast<int>(modes) != body.basis.modes())
      throw_mismatch(file, "reduced solid \"" + from.name + "\" has " + std::to_string(modes) +
                               " modes in the checkpoint, " + std::to_string(body.basis.modes()) + " in the scene");
    r.q.resize(static_cast<Index>(modes));
    r.qdot.resize(static_cast<Index>(modes));
    for (std::size_t k = 0; k < modes; ++k) r.q[static_cast<Index>(k)] = from.q[k];
    for (std::size_t k = 0; k < modes; ++k) r.qdot[static_cast<Index>(k)] = from.qdot[k];
  }
}

void restore_liquid(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  if (s.liquid.has_value() != state.liquid.has_value())
    throw_mismatch(file, s.liquid ? "the checkpoint has liquid, the scene has none"
                                  : "the scene has liquid, the checkpoint none");
  if (!state.liquid) return;
  const checkpoint::LiquidRecord& from = *s.liquid;
  const std::string where = section_where(file, checkpoint::SECTION_LIQUID);
  fluid::Liquid& l = *state.liquid;
  l.particle_radius = from.particle_radius;
  l.particle_volume = from.particle_volume;
  l.particles = from.particles;
  for (int a = 0; a < 3; ++a) restore_array(from.velocity[a], l.velocity[a], where, "face velocities");
  restore_array(from.pressure, l.pressure, where, "pressure");
  restore_array(from.liquid_phi, l.liquid_phi, where, "liquid distance field");
  restore_array(from.static_phi, l.static_phi, where, "obstacle distance field");
  restore_array(from.solid_phi, l.solid_phi, where, "solid distance field");
  for (int a = 0; a < 3; ++a) restore_array(from.fractions[a], l.fractions[a], where, "face fractions");
  for (int a = 0; a < 3; ++a) restore_array(from.valid[a], l.valid[a], where, "valid faces");
}

// Stage 4's solid part on the vertices it last saw (without stored surfaces,
// on the stored x), then the solids back where they are.
void restore_solid_fields(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  if (!state.liquid || state.solids.empty()) return;
  std::vector<Points> now;
  for (solid::Body& b : state.solids) now.push_back(b.x);
  if (!s.surfaces.empty()) {
    const std::string where = section_where(file, checkpoint::SECTION_SURFACES);
    if (s.surfaces.size() != state.solids.size())
      throw_mismatch(where, std::to_string(s.surfaces.size()) + " surfaces in the checkpoint, " +
                                std::to_string(state.solids.size()) + " solids in the scene");
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      solid::Body& body = state.solids[b];
      restore_points(s.surfaces[b], body.x, body.num_nodes(), where, "solid \"" + body.name + "\" surface");
    }
  }
  update_solid_fields(state);
  for (std::size_t b = 0; b < state.solids.size(); ++b) state.solids[b].x = now[b];
}

std::array<std::vector<double>, 3> piece_runs(const fluid::PieceVelocities& pieces) {
  std::array<std::vector<double>, 3> runs;
  for (int a = 0; a < 3; ++a) {
    std::vector<Index> faces;
    for (const auto& [face, v] : pieces.faces[a]) faces.push_back(face);
    std::sort(faces.begin(), faces.end());
    for (const Index face : faces) {
      const std::vector<Real>& v = pieces.faces[a].at(face);
      runs[a].push_back(static_cast<double>(face));
      runs[a].push_back(static_cast<double>(v.size()));
      runs[a].insert(runs[a].end(), v.begin(), v.end());
    }
  }
  return runs;
}

// After restore_solid_fields: the split cells are those the pieces were
// computed for, so each stored face must have as many pieces as it has now.
void restore_pieces(const checkpoint::Snapshot& s, const std::string& file, CutCellSimulator& state) {
  if (!state.liquid) return;
  fluid::Liquid& l = *state.liquid;
  l.pieces.clear();
  const std::string where = section_where(file, checkpoint::SECTION_PIECES);
  for (int a = 0; a < 3; ++a) {
    const std::vector<double>& run = s.pieces[a];
    for (std::size_t at = 0; at < run.size();) {
      if (at + 2 > run.size()) throw_mismatch(where, "a face's record is cut short");
      const Index face = static_cast<Index>(run[at]);
      const std::size_t n = static_cast<std::size_t>(run[at + 1]);
      const std::vector<cutcell::FacePiece>* now = l.split.pieces(a, face);
      if (!now || now->size() != n || at + 2 + n > run.size())
        throw_mismatch(where, "the piece velocities of face " + std::to_string(face) + " along axis " +
                                  std::to_string(a) + " do not match the split cells of the stored solids");
      l.pieces.faces[a][face].assign(run.begin() + static_cast<std::ptrdiff_t>(at + 2),
                                     run.begin() + static_cast<std::ptrdiff_t>(at + 2 + n));
      at += 2 + n;
    }
  }
}

}  // namespace

void CutCellSimulator::save(checkpoint::Snapshot& s) const {
  const CutCellSimulator& state = *this;
  for (const solid::Body& b : state.solids) s.solids.push_back({b.name, b.x, b.v});
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    if (state.is_reduced(b)) s.reduced.push_back(reduced_record(state.solids[b].name, state.reduced[b]->state));
  if (state.liquid && !state.solids.empty())
    for (std::size_t b = 0; b < state.solids.size(); ++b) s.surfaces.push_back(state.surfaces.meshes[b].vertices());
  if (state.liquid) s.liquid = liquid_record(*state.liquid);
  if (state.liquid) s.pieces = piece_runs(state.liquid->pieces);
}

void CutCellSimulator::restore(const checkpoint::Snapshot& snapshot, const std::string& file) {
  if (snapshot.eulerian)
    throw_mismatch(section_where(file, checkpoint::SECTION_EULERIAN), "it holds an Eulerian world and the scene none");
  restore_solids(snapshot, file, *this);
  restore_reduced(snapshot, file, *this);
  restore_liquid(snapshot, file, *this);
  restore_solid_fields(snapshot, file, *this);
  restore_pieces(snapshot, file, *this);
}

}  // namespace fsicut::sim
