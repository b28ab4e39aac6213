#include "lib/sim/snapshot.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "fsicut/core/version.hpp"
#include "lib/checkpoint/files.hpp"
#include "lib/checkpoint/format.hpp"
#include "lib/checkpoint/reports.hpp"
#include "lib/checkpoint/values.hpp"
#include "lib/core/hash.hpp"
#include "lib/core/log.hpp"
#include "lib/scene/fingerprint.hpp"
#include "lib/sim/simulator.hpp"

// The driver's part of a checkpoint: sections CLCK, STAT and MEAS
// (checkpoint/format.hpp has their layouts; the simulators' parts are in
// sim/cutcell/snapshot.cpp and sim/eulerian/snapshot.cpp). What is stored,
// member by member; a member added here is written by a put_ function below
// and read by its get_ function (tests/sim/cutcell/test_snapshot.cpp checks
// the struct sizes so the question cannot be missed):
//   Simulator      time, frame: stored (CLCK). scene: not stored (the caller
//                  builds the simulator from the scene; its fingerprint is
//                  stored in META and compared).
//   RunProgress    mid_frame: stored (CLCK). stats: stored (STAT). probes:
//                  stored (MEAS). partial: below.
//   FrameStats     frame, time, substeps, cfl_exceeded, solves, solver (every
//                  member of linsolve::Report: checkpoint/reports.hpp),
//                  seconds, partitioned (every member of
//                  coupling::PartitionedReport, when present): stored (CLCK;
//                  mid-frame checkpoints). probe_rows, loads (the load sums
//                  and their seconds): stored in the optional section MEAS,
//                  with RunProgress::probes, only when there is something to
//                  store, so other scenes' checkpoints are unchanged and older
//                  ones still read (no FORMAT_VERSION bump: a reader skips
//                  sections it does not know). particle_substeps: stored in
//                  the optional section PSUB only when it differs from
//                  substeps (time/particle_cfl), equal to substeps without it.

namespace fsicut::sim {
namespace fs = std::filesystem;

namespace {

void put_loads(checkpoint::ByteWriter& w, const std::vector<Load>& loads) {
  std::vector<double> v;
  for (const Load& l : loads)
    for (const Vec3& x : {l.force, l.torque}) v.insert(v.end(), x.data(), x.data() + 3);
  checkpoint::put_values(w, v);
}

std::vector<Load> get_loads(checkpoint::ByteReader& r, const std::string& name) {
  const std::vector<double> v = checkpoint::get_values<double>(r, name);
  std::vector<Load> loads(v.size() / 6);
  for (std::size_t i = 0; i < loads.size(); ++i) {
    loads[i].force = Vec3(v[6 * i], v[6 * i + 1], v[6 * i + 2]);
    loads[i].torque = Vec3(v[6 * i + 3], v[6 * i + 4], v[6 * i + 5]);
  }
  return loads;
}

// CLCK: the clock first (checkpoint::inspect reads it), then the frame's
// statistics so far.
void put_clock(checkpoint::ByteWriter& w, const Checkpoint& c) {
  const FrameStats& s = c.progress.partial;
  w.f64(c.time);
  w.i32(c.frame);
  w.u8(c.progress.mid_frame ? 1 : 0);
  w.i32(s.frame);
  w.f64(s.time);
  w.i32(s.substeps);
  w.i32(s.cfl_exceeded);
  w.i32(s.solves);
  checkpoint::put(w, s.solver);
  w.u32(static_cast<std::uint32_t>(s.seconds.size()));
  for (const auto& [stage, seconds] : s.seconds) {
    w.str(stage);
    w.f64(seconds);
  }
  w.u8(s.partitioned ? 1 : 0);
  if (s.partitioned) checkpoint::put(w, *s.partitioned);
}

void get_clock(checkpoint::ByteReader& r, Real& time, int& frame, RunProgress& progress) {
  FrameStats& s = progress.partial;
  time = r.f64();
  frame = r.i32();
  progress.mid_frame = r.u8() != 0;
  s.frame = r.i32();
  s.time = r.f64();
  s.substeps = r.i32();
  s.cfl_exceeded = r.i32();
  s.solves = r.i32();
  checkpoint::get(r, s.solver);
  const std::uint32_t n = r.u32();
  s.seconds.clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string stage = r.str();
    s.seconds[stage] = r.f64();
  }
  s.partitioned.reset();
  if (r.u8() != 0) checkpoint::get(r, s.partitioned.emplace());
}

// MEAS, only when there is something to store.
bool has_measures(const RunProgress& p) {
  return !p.probes.empty() || !p.partial.probe_rows.empty() || p.partial.loads.seconds != 0;
}

void put_measures(checkpoint::ByteWriter& w, const RunProgress& p) {
  w.str(p.probes);
  w.str(p.partial.probe_rows);
  w.f64(p.partial.loads.seconds);
  put_loads(w, p.partial.loads.solids);
  put_loads(w, p.partial.loads.obstacles);
}

void get_measures(checkpoint::ByteReader& r, RunProgress& p) {
  p.probes = r.str();
  p.partial.probe_rows = r.str();
  p.partial.loads.seconds = r.f64();
  p.partial.loads.solids = get_loads(r, "solid loads");
  p.partial.loads.obstacles = get_loads(r, "obstacle loads");
}

// PEND, only with a frame given up on a stop.
void put_pending(checkpoint::ByteWriter& w, const RunProgress::Pending& p) {
  w.str(p.record);
  w.u32(static_cast<std::uint32_t>(p.seconds.size()));
  for (const auto& [stage, seconds] : p.seconds) {
    w.str(stage);
    w.f64(seconds);
  }
  w.str(p.probe_rows);
}

RunProgress::Pending get_pending(checkpoint::ByteReader& r) {
  RunProgress::Pending p;
  p.record = r.str();
  const std::uint32_t n = r.u32();
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string stage = r.str();
    p.seconds[stage] = r.f64();
  }
  p.probe_rows = r.str();
  return p;
}

}  // namespace

Checkpoint take_checkpoint(const Simulator& sim, RunProgress progress) {
  Checkpoint c;
  c.state.fsicut_version = VERSION;
  c.state.scene = scene::fingerprint(sim.scene);
  sim.save(c.state);
  c.time = sim.time;
  c.frame = sim.frame;
  c.progress = std::move(progress);
  return c;
}

checkpoint::Snapshot to_snapshot(const Checkpoint& c) {
  checkpoint::Snapshot s = c.state;
  checkpoint::add_section(s, checkpoint::SECTION_CLOCK, [&](checkpoint::ByteWriter& w) { put_clock(w, c); });
  checkpoint::add_section(s, checkpoint::SECTION_STATS,
                          [&](checkpoint::ByteWriter& w) { w.str(c.progress.stats); });
  if (has_measures(c.progress))
    checkpoint::add_section(s, checkpoint::SECTION_MEASURES,
                            [&](checkpoint::ByteWriter& w) { put_measures(w, c.progress); });
  const FrameStats& partial = c.progress.partial;
  if (partial.particle_substeps != partial.substeps)
    checkpoint::add_section(s, checkpoint::SECTION_PARTICLE_STEPS,
                            [&](checkpoint::ByteWriter& w) { w.i32(partial.particle_substeps); });
  if (c.progress.pending)
    checkpoint::add_section(s, checkpoint::SECTION_PENDING_FRAME,
                            [&](checkpoint::ByteWriter& w) { put_pending(w, *c.progress.pending); });
  return s;
}

checkpoint::Snapshot to_snapshot(const Simulator& sim, const RunProgress& progress) {
  return to_snapshot(take_checkpoint(sim, progress));
}

void restore_snapshot(const checkpoint::Snapshot& snapshot, const std::string& file, Simulator& sim,
                      RunProgress& progress) {
  RunProgress p;
  Real time = 0;
  int frame = 0;
  checkpoint::ByteReader clock = snapshot.read(checkpoint::SECTION_CLOCK, file);
  get_clock(clock, time, frame, p);
  checkpoint::expect_end(clock);
  checkpoint::ByteReader stats = snapshot.read(checkpoint::SECTION_STATS, file);
  p.stats = stats.str();
  checkpoint::expect_end(stats);
  if (snapshot.has(checkpoint::SECTION_MEASURES)) {
    checkpoint::ByteReader measures = snapshot.read(checkpoint::SECTION_MEASURES, file);
    get_measures(measures, p);
    checkpoint::expect_end(measures);
  }
  p.partial.particle_substeps = p.partial.substeps;
  if (snapshot.has(checkpoint::SECTION_PARTICLE_STEPS)) {
    checkpoint::ByteReader steps = snapshot.read(checkpoint::SECTION_PARTICLE_STEPS, file);
    p.partial.particle_substeps = steps.i32();
    checkpoint::expect_end(steps);
  }
  if (snapshot.has(checkpoint::SECTION_PENDING_FRAME)) {
    checkpoint::ByteReader pending = snapshot.read(checkpoint::SECTION_PENDING_FRAME, file);
    p.pending = get_pending(pending);
    checkpoint::expect_end(pending);
  }
  // The clock first: what moves as a function of time is placed at it on restore.
  sim.time = time;
  sim.frame = frame;
  sim.restore(snapshot, file);
  progress = std::move(p);
}

namespace {

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == by) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

// probes.csv rows (lines with "\n") of columns `from` rewritten with the
// columns `to`: each takes the value of the column of its name, empty where
// `from` has none.
std::string rearranged(const std::string& rows, const std::vector<std::string>& from,
                       const std::vector<std::string>& to) {
  std::vector<int> source;
  for (const std::string& name : to)
    source.push_back(static_cast<int>(std::find(from.begin(), from.end(), name) - from.begin()));
  std::string out;
  std::size_t start = 0;
  for (std::size_t end; (end = rows.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::vector<std::string> values = split(rows.substr(start, end - start), ',');
    for (std::size_t c = 0; c < source.size(); ++c) {
      if (c > 0) out += ',';
      if (source[c] < static_cast<int>(values.size())) out += values[static_cast<std::size_t>(source[c])];
    }
    out += '\n';
  }
  return out;
}

// A run continued with --force under other probes: probes.csv and the rows of
// the frame under way take the scene's columns, so the file keeps one layout
// (the earlier rows empty in a new probe's columns, a removed probe's gone).
void rearrange_probes(const Simulator& sim, RunProgress& progress) {
  const std::string header = sim.probes_header();
  const std::size_t first = progress.probes.find('\n');
  const std::string old = first == std::string::npos ? "" : progress.probes.substr(0, first + 1);
  if (old == header) return;
  if (header.empty()) {
    progress.probes.clear();
    progress.partial.probe_rows.clear();
    if (progress.pending) progress.pending->probe_rows.clear();
    return;
  }
  const std::vector<std::string> from = old.empty() ? std::vector<std::string>{} : split(old.substr(0, old.size() - 1), ',');
  const std::vector<std::string> to = split(header.substr(0, header.size() - 1), ',');
  const std::string rows = old.empty() ? "" : progress.probes.substr(first + 1);
  progress.probes = header + rearranged(rows, from, to);
  progress.partial.probe_rows = rearranged(progress.partial.probe_rows, from, to);
  if (progress.pending) progress.pending->probe_rows = rearranged(progress.pending->probe_rows, from, to);
}

}  // namespace

fs::path write_checkpoint(const fs::path& folder, const Checkpoint& c, int keep) {
  return checkpoint::write(folder, c.frame, to_snapshot(c), keep);
}

fs::path write_checkpoint(const fs::path& folder, const Simulator& sim, const RunProgress& progress, int keep) {
  return write_checkpoint(folder, take_checkpoint(sim, progress), keep);
}

std::optional<checkpoint::Resumed> resume_checkpoint(const fs::path& folder, Simulator& sim, RunProgress& progress,
                                                     bool force) {
  std::optional<checkpoint::Found> found = checkpoint::newest_intact(folder);
  if (!found) return std::nullopt;
  const std::string file = found->file.string();
  checkpoint::Resumed r{found->file, found->info, {}};
  const std::string fingerprint = scene::fingerprint(sim.scene);
  if (found->info.scene_hash != fnv1a(fingerprint)) {
    r.changed = scene::changed_keys(found->info.scene, fingerprint);
    std::string list_text;
    for (const std::string& c : r.changed) list_text += "\n  " + c;
    if (!force)
      throw Error(ExitCode::data, sim.scene.file + ": the scene changed since " + file + " was written:" + list_text +
                                      "\nrun without --resume to start over, or add --force to continue from the "
                                      "checkpoint with the changed scene");
    log::warn(sim.scene.file + ": continuing " + file + " with a changed scene (--force):" + list_text);
  }
  if (found->info.fsicut_version != VERSION)
    log::warn(file + " was written by fsicut " + found->info.fsicut_version + ", this is " + VERSION +
              "; results may differ from an uninterrupted run");
  const checkpoint::Snapshot snapshot = checkpoint::decode(found->bytes, file);
  std::string().swap(found->bytes);  // the state is about to take that memory again
  restore_snapshot(snapshot, file, sim, progress);
  if (found->info.scene_hash != fnv1a(fingerprint)) rearrange_probes(sim, progress);
  checkpoint::remove_files(found->unusable);
  return r;
}

}  // namespace fsicut::sim
