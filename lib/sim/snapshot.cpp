#include "lib/sim/snapshot.hpp"

#include "fsicut/core/version.hpp"
#include "lib/checkpoint/files.hpp"
#include "lib/checkpoint/format.hpp"
#include "lib/core/hash.hpp"
#include "lib/core/log.hpp"
#include "lib/scene/fingerprint.hpp"
#include "lib/sim/simulator.hpp"

namespace fsicut::sim {
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- to the snapshot

std::vector<double> load_values(const std::vector<Load>& loads) {
  std::vector<double> v;
  for (const Load& l : loads)
    for (const Vec3& x : {l.force, l.torque}) v.insert(v.end(), x.data(), x.data() + 3);
  return v;
}

std::vector<Load> loads_of(const std::vector<double>& v) {
  std::vector<Load> loads(v.size() / 6);
  for (std::size_t i = 0; i < loads.size(); ++i) {
    loads[i].force = Vec3(v[6 * i], v[6 * i + 1], v[6 * i + 2]);
    loads[i].torque = Vec3(v[6 * i + 3], v[6 * i + 4], v[6 * i + 5]);
  }
  return loads;
}

checkpoint::FrameRecord frame_record(const FrameStats& s) {
  checkpoint::FrameRecord r;
  r.frame = s.frame;
  r.time = s.time;
  r.substeps = s.substeps;
  r.cfl_exceeded = s.cfl_exceeded;
  r.solves = s.solves;
  r.solver = {s.solver.converged, s.solver.met_tolerance, s.solver.iterations, s.solver.relative_residual,
              s.solver.round_off_floor, s.solver.unknowns, s.solver.failure};
  r.seconds = s.seconds;
  if (s.partitioned) {
    const coupling::PartitionedReport& p = *s.partitioned;
    r.partitioned = checkpoint::PartitionedRecord{p.converged,     p.iterations,    p.interface_residual,
                                                  p.fluid_seconds, p.solid_seconds, p.interface_seconds};
  }
  r.probe_rows = s.probe_rows;
  r.load_seconds = s.loads.seconds;
  r.solid_loads = load_values(s.loads.solids);
  r.obstacle_loads = load_values(s.loads.obstacles);
  return r;
}

// ---------------------------------------------------------------- from the snapshot

FrameStats frame_stats(const checkpoint::FrameRecord& r) {
  FrameStats s;
  s.frame = r.frame;
  s.time = r.time;
  s.substeps = r.substeps;
  s.cfl_exceeded = r.cfl_exceeded;
  s.solves = r.solves;
  s.solver.converged = r.solver.converged;
  s.solver.met_tolerance = r.solver.met_tolerance;
  s.solver.iterations = r.solver.iterations;
  s.solver.relative_residual = r.solver.relative_residual;
  s.solver.round_off_floor = r.solver.round_off_floor;
  s.solver.unknowns = r.solver.unknowns;
  s.solver.failure = r.solver.failure;
  s.seconds = r.seconds;
  if (r.partitioned) {
    const checkpoint::PartitionedRecord& p = *r.partitioned;
    s.partitioned = coupling::PartitionedReport{p.converged,     p.iterations,    p.interface_residual,
                                                p.fluid_seconds, p.solid_seconds, p.interface_seconds};
  }
  s.probe_rows = r.probe_rows;
  s.loads.seconds = r.load_seconds;
  s.loads.solids = loads_of(r.solid_loads);
  s.loads.obstacles = loads_of(r.obstacle_loads);
  return s;
}

}  // namespace

checkpoint::Snapshot to_snapshot(const Simulator& sim, const RunProgress& progress) {
  checkpoint::Snapshot s;
  s.fsicut_version = VERSION;
  s.scene = scene::fingerprint(sim.scene);
  s.time = sim.time;
  s.frame = sim.frame;
  s.mid_frame = progress.mid_frame;
  s.partial = frame_record(progress.partial);
  s.stats = progress.stats;
  s.probes = progress.probes;
  sim.save(s);
  return s;
}

void restore_snapshot(const checkpoint::Snapshot& snapshot, const std::string& file, Simulator& sim,
                      RunProgress& progress) {
  progress.mid_frame = snapshot.mid_frame;
  progress.partial = frame_stats(snapshot.partial);
  progress.stats = snapshot.stats;
  progress.probes = snapshot.probes;
  sim.restore(snapshot, file);
  sim.time = snapshot.time;
  sim.frame = snapshot.frame;
}

fs::path write_checkpoint(const fs::path& folder, const Simulator& sim, const RunProgress& progress, int keep) {
  return checkpoint::write(folder, to_snapshot(sim, progress), keep);
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
  checkpoint::remove_files(found->unusable);
  return r;
}

}  // namespace fsicut::sim
