#include "lib/sim/run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "lib/core/parallel.hpp"
#include "lib/io/atomic.hpp"
#include "lib/io/obj.hpp"
#include "lib/io/vdb.hpp"
#include "lib/sim/stats.hpp"
#include "lib/sim/step.hpp"

namespace fsicut::sim {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* STAGE_OUTPUT = "output";
// A frame is done when less than this fraction of a frame remains: the
// substeps' dt sum to the frame length only up to round-off.
constexpr Real FRAME_END_SLACK = 1e-12;

std::string numbered(const std::string& stem, int frame, const char* extension) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04d", frame);
  return stem + "." + digits + extension;
}

// Liquid VDB voxels default to half a grid cell: the particles resolve the
// surface finer than the grid does, and a renderer sees less voxel stepping.
Real vdb_voxel_size(const scene::Scene& scene) {
  return scene.output.voxel_size ? *scene.output.voxel_size : scene.grid.cell_size / 2;
}

void write_frame(const SimState& state, const fs::path& dir) {
  const scene::Output& out = state.scene.output;
  if (state.liquid && out.liquid)
    io::write_liquid_vdb(dir / numbered("liquid", state.frame, ".vdb"), state.liquid->particles(),
                         state.liquid->particle_radius, vdb_voxel_size(state.scene),
                         io::VdbMetadata{state.frame, state.time});
  if (out.solids)
    for (const solid::Body& b : state.solids)
      io::write_obj(dir / numbered(b.name, state.frame, ".obj"), b.x, b.mesh.boundary);
}

FrameStats empty_stats(const SimState& state) {
  FrameStats st;
  st.frame = state.frame;
  st.time = state.time;
  for (const char* stage : {STAGE_SOLID_POSITIONS, STAGE_ADVECTION, STAGE_FORCES, STAGE_DISTANCE_FIELDS,
                            STAGE_PROJECTION, STAGE_EXTRAPOLATION, STAGE_OUTPUT})
    st.seconds[stage] = 0;
  return st;
}

}  // namespace

Substep choose_substep(const SimState& state, Real remaining, int substeps_left) {
  const scene::Scene& s = state.scene;
  // sqrt(dx |g|) bounds the speed gravity adds within one step of CFL length,
  // so the very first step from rest is not a whole frame long.
  const Real speed = max_speed(state) + std::sqrt(s.grid.cell_size * s.gravity.norm());
  const Real cfl_dt = speed > 0 ? s.time.cfl * s.grid.cell_size / speed : remaining;
  if (cfl_dt >= remaining) return {remaining, false};
  // Two steps of half the remainder rather than a full one and a sliver.
  if (2 * cfl_dt >= remaining) return {remaining / 2, false};
  const Real floor_dt = remaining / std::max(substeps_left, 1);
  if (cfl_dt < floor_dt) return {floor_dt, true};
  return {cfl_dt, false};
}

void run(SimState& state, const FrameCallback& on_frame) {
  const scene::Scene& scene = state.scene;
  const fs::path dir = scene.output.directory;
  io::ensure_output_directory(dir);
  io::write_text_atomically(dir / "run.json", run_record(state, threads()));

  std::string stats_text;
  auto finish_frame = [&](FrameStats& st, Clock::time_point started) {
    const auto output_start = Clock::now();
    write_frame(state, dir);
    st.seconds[STAGE_OUTPUT] = std::chrono::duration<double>(Clock::now() - output_start).count();
    // The whole file is rewritten each frame: a reader never sees a partial line.
    stats_text += stats_line(state, st) + "\n";
    io::write_text_atomically(dir / "stats.jsonl", stats_text);
    if (on_frame)
      on_frame(FrameReport{state.frame, scene.time.frames, state.time, st.substeps,
                           std::chrono::duration<double>(Clock::now() - started).count()});
  };

  {
    FrameStats st = empty_stats(state);
    finish_frame(st, Clock::now());
  }
  const Real frame_dt = 1 / scene.time.fps;
  for (int frame = state.frame + 1; frame <= scene.time.frames; ++frame) {
    const auto started = Clock::now();
    const Real frame_end = frame * frame_dt;
    StageTimes times;
    FrameStats st = empty_stats(state);
    // Frame ends are computed from the frame number, not accumulated, so
    // round-off does not drift over long runs.
    while (frame_end - state.time > FRAME_END_SLACK * frame_dt) {
      const Substep sub = choose_substep(state, frame_end - state.time, scene.time.max_substeps - st.substeps);
      const bool last = sub.dt >= frame_end - state.time;
      const StepReport r = step(state, sub.dt, times);
      if (last) state.time = frame_end;
      if (r.solves > 0) {
        st.solver = st.solves == 0 ? r.solve : linsolve::worst(st.solver, r.solve);
        st.solves += r.solves;
      }
      st.cfl_exceeded += sub.cfl_exceeded ? 1 : 0;
      ++st.substeps;
    }
    state.frame = st.frame = frame;
    st.time = state.time;
    for (const auto& [stage, seconds] : times.seconds()) st.seconds[stage] = seconds;
    finish_frame(st, started);
  }
}

}  // namespace fsicut::sim
