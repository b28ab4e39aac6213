#include "lib/sim/run.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "lib/checkpoint/files.hpp"
#include "lib/core/background_task.hpp"
#include "lib/core/cancel.hpp"
#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/core/log.hpp"
#include "lib/io/atomic.hpp"
#include "lib/io/lock.hpp"
#include "lib/sim/absurd.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/frame_output.hpp"
#include "lib/sim/output_folder.hpp"
#include "lib/sim/sanity.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::sim {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* STAGE_OUTPUT = "output";
constexpr const char* OUTPUT_WAIT = "output_wait";
constexpr const char* OTHER = "other";
// A frame is done when less than this fraction of a frame remains (as in
// advance_to): a stop request after its last substep waits for its outputs.
constexpr Real FRAME_END_SLACK = 1e-12;
// How long a stop waits for the frame being written before it gives it up
// [s]: a light frame is finished (nothing is simulated again), a heavy one
// does not hold the stop.
constexpr double WRITER_GRACE_SECONDS = 1;

FrameStats empty_stats(const Simulator& sim) {
  FrameStats st;
  st.frame = sim.frame;
  st.time = sim.time;
  for (const std::string& stage : sim.stages()) st.seconds[stage] = 0;
  st.seconds[STAGE_OUTPUT] = 0;
  return st;
}

// The frame loop of one run: its folder, the loop state a checkpoint keeps, and
// what ends a frame (outputs, stats, sanity, checkpoints, the callback).
//
// Each frame's files, its stats line and its checkpoint are written by one job
// on `writer_` while the next frame steps (at most one frame in flight). The
// job owns manifest_ and progress_.stats while it runs; the loop touches them
// only after writer_.wait(). A frame is reported (on_frame) once its job is
// done, from the loop's thread: after a substep that finds it done, or when
// the next frame waits for it.
class FrameLoop {
  // A checkpoint written on a stop: its file, and the time and frame it holds.
  struct Saved {
    fs::path file;
    Real time = 0;
    int frame = 0;
  };

 public:
  FrameLoop(Simulator& sim, const FrameCallback& on_frame, const RunControl& control)
      : state_(sim), on_frame_(on_frame), control_(control), dir_(sim.scene.output.directory),
        resumed_(control.resumed != nullptr) {}

  void run() {
    io::ensure_output_directory(dir_);
    const io::FolderLock lock(dir_);
    // Before the lock goes, whatever ends the run: no job writes into a folder
    // another run may have taken.
    const struct Drain {
      BackgroundTask& writer;
      ~Drain() { writer.finish(); }
    } drain{writer_};
    remove_stale_temporaries(dir_);
    manifest_ = resumed_ ? read_manifest(dir_) : Manifest{};
    prepare_folder(state_, dir_, manifest_, resumed_, resumed_ && control_.resumed->pending);
    if (resumed_) progress_ = *control_.resumed;
    else checkpoint::remove_all(dir_);
    if (progress_.pending) write_pending_frame();
    if (resumed_) initial_volume_ = first_liquid_volume(progress_.stats);
    if (resumed_) previous_volume_ = last_liquid_volume(progress_.stats);
    else initial_volume_ = state_.liquid_volume();
    if (!resumed_) {
      progress_.probes = state_.probes_header();
      FrameStats st = empty_stats(state_);
      finish_frame(st, Clock::now(), 0);
    }
    while (state_.frame < state_.scene.time.frames) {
      report_written();
      if (stopped()) {
        if (const std::optional<Saved> c = give_up_writing(progress_.mid_frame)) throw interrupted(*c);
        throw interrupted(save(progress_.mid_frame, progress_.partial));
      }
      const auto started = Clock::now();
      Real stepped = 0;
      FrameStats st = advance_one_frame(stepped);
      finish_frame(st, started, stepped);
    }
    writer_.wait();
    report_written();
  }

 private:
  // The next frame to its end; a mid-frame checkpoint's frame continues with
  // its statistics (its substep count bounds the remaining substeps).
  // `stepped`: the stage seconds this call added [s].
  FrameStats advance_one_frame(Real& stepped) {
    const Real end = frame_end(state_, state_.frame + 1);
    StageTimes times;
    FrameStats st = empty_stats(state_);
    if (progress_.mid_frame) {
      st = progress_.partial;
      for (const auto& [stage, seconds] : st.seconds)
        if (stage != STAGE_OUTPUT && stage != OUTPUT_WAIT && stage != OTHER) times.add(stage, seconds);
      progress_.mid_frame = false;
    }
    const Real before = total(times);
    frame_start_.reset();
    // A stop request is honoured after the substep under way; at the frame's
    // end it waits for the frame's outputs.
    AdvanceHooks hooks;
    hooks.observe = control_.observe;
    hooks.before_substep = [&](const Simulator&, const FrameStats& tally) {
      substep_started_ = Clock::now();
      if (!control_.stop) return;
      // The first substep is always long: nothing has been measured, and the
      // estimate (sim/cost.hpp) can be off by 10x (an Eulerian first substep
      // with many solver iterations).
      const bool measured = last_substep_seconds_ > 0;
      const bool long_one =
          !measured || std::max(last_substep_seconds_, estimated_substep_seconds_) > control_.abandonable_seconds;
      if (long_one || !frame_start_) {
        FrameStats partial = tally;
        for (const auto& [stage, seconds] : times.seconds()) partial.seconds[stage] = seconds;
        const bool inside = tally.substeps > 0;
        Checkpoint here = take_checkpoint(state_, RunProgress{{}, {}, inside, inside ? partial : FrameStats{}, {}});
        (frame_start_ ? rollback_ : frame_start_) = std::move(here);
      }
      cancel_.emplace(control_.stop, long_one ? 0.0 : control_.stop_grace_seconds);
    };
    hooks.after_substep = [&](const Simulator&, const StepReport&) {
      cancel_.reset();
      rollback_.reset();
      last_substep_seconds_ = std::chrono::duration<double>(Clock::now() - substep_started_).count();
      report_written();
      if (stopped() && end - state_.time > FRAME_END_SLACK / state_.scene.time.fps) {
        for (const auto& [stage, seconds] : times.seconds()) st.seconds[stage] = seconds;
        if (const std::optional<Saved> c = give_up_writing(true)) throw interrupted(*c);
        throw interrupted(save(true, st));
      }
    };
    try {
      advance_frame(state_, st, times, hooks);
    } catch (const Cancelled&) {
      cancel_.reset();
      if (const std::optional<Saved> c = give_up_writing(true)) throw interrupted(*c);
      Checkpoint& back = rollback_ ? *rollback_ : *frame_start_;
      throw interrupted(save_rollback(back), back.time, back.frame);
    } catch (const SimulationError& e) {
      std::ostringstream where;
      where << e.what() << " (frame " << state_.frame + 1 << ", the substep from t = " << state_.time << " s)";
      throw SimulationError(where.str());
    }
    st.frame = state_.frame;
    st.time = state_.time;
    for (const auto& [stage, seconds] : times.seconds()) st.seconds[stage] = seconds;
    stepped = total(times) - before;
    return st;
  }

  static Real total(const StageTimes& times) {
    Real sum = 0;
    for (const auto& [stage, seconds] : times.seconds()) sum += seconds;
    return sum;
  }

  // Captures the frame, checks it, and hands its writing to writer_. The
  // frame's seconds: the stages, `output_wait` (waiting here for the previous
  // frame's job), `other` (the rest of this frame's wall time since `started`:
  // work between the stages, capturing, stats), which add up to the frame's
  // wall time, and `output` (its files, written by the job beside the next frame).
  void finish_frame(FrameStats& st, Clock::time_point started, Real stepped) {
    const scene::Scene& scene = state_.scene;
    FrameOutput out = state_.capture_frame();
    nlohmann::json record = frame_record(state_, st);
    const std::optional<Real> volume = state_.has_liquid() ? liquid_books(record) : std::nullopt;
    const bool net = record.value("liquid_added", 0.0) != 0 || record.value("liquid_removed", 0.0) != 0;
    const LiquidVolumes volumes{initial_volume_, previous_volume_, volume, net, record["liquid_volume"].get<Real>()};
    const int every = scene.output.checkpoint_every;
    // A checkpoint never refers to a frame that is not on disk: the job writes
    // it after the frame. The last frame gets one too, so a run can be extended.
    std::optional<Checkpoint> snapshot;
    if (every > 0 && state_.frame > 0 && (state_.frame % every == 0 || state_.frame == scene.time.frames))
      snapshot = take_checkpoint(state_, RunProgress{});
    const FrameReport report{state_.frame, scene.time.frames, state_.time, st.substeps, 0};

    const auto waiting = Clock::now();
    while (!writer_.wait_for(ABANDON_POLL_SECONDS))
      if (stopped())
        if (const std::optional<Saved> c = give_up_writing(false)) throw interrupted(*c);
    writer_.wait();
    const Real waited = std::chrono::duration<double>(Clock::now() - waiting).count();
    report_written();
    st.seconds[OUTPUT_WAIT] = waited;
    const Real wall = std::chrono::duration<double>(Clock::now() - started).count();
    st.seconds[OTHER] = std::max(0.0, wall - stepped - waited);
    unreported_ = report;
    unreported_->seconds = wall;
    in_flight_ = InFlight{state_.frame, RunProgress::Pending{record.dump(), st.seconds, st.probe_rows}};
    writer_.run([this, out = std::move(out), record = std::move(record), seconds = st.seconds,
                 rows = std::move(st.probe_rows), snapshot = std::move(snapshot)]() mutable {
      write_job(out, std::move(record), std::move(seconds), rows, std::move(snapshot));
    });
    // After the hand-over: a strict or absurd stop still leaves this frame on disk.
    check_sanity(state_, volumes, sanity_, control_.strict);
    check_absurd(state_, volumes, sanity_);
    previous_volume_ = volumes.now;
  }

  // On writer_: the frame's files and manifest (a resumed run keeps the
  // frames already on disk as written), its stats line, its probe rows, its checkpoint.
  void write_job(const FrameOutput& out, nlohmann::json record, std::map<std::string, double> seconds,
                 const std::string& probe_rows, std::optional<Checkpoint> snapshot) {
    const auto start = Clock::now();
    if (!resumed_ || control_.rewrite_existing || !frame_verified(out, dir_, manifest_)) {
      try {
        if (control_.writing) control_.writing(out.frame, abandon_);
        for (const auto& [name, digest] : write_frame(out, dir_, &abandon_)) manifest_[name] = digest;
      } catch (const Abandoned&) {
        abandoned_ = true;
        return;
      }
      write_manifest(dir_, manifest_);
    }
    seconds[STAGE_OUTPUT] = std::chrono::duration<double>(Clock::now() - start).count();
    // The whole file is rewritten each frame: a reader never sees a partial line.
    progress_.stats += stats_line(std::move(record), seconds) + "\n";
    io::write_text_atomically(dir_ / "stats.jsonl", progress_.stats);
    if (!progress_.probes.empty()) {
      progress_.probes += probe_rows;
      io::write_text_atomically(dir_ / PROBES_FILE, progress_.probes);
    }
    if (snapshot) {
      snapshot->progress.stats = progress_.stats;
      snapshot->progress.probes = progress_.probes;
      write_checkpoint(dir_, *snapshot, state_.scene.output.checkpoint_keep);
    }
  }

  // Calls on_frame for the frame whose job is done, if any; rethrows the
  // job's error.
  void report_written() {
    if (!unreported_ || !writer_.idle()) return;
    writer_.wait();
    const FrameReport report = *unreported_;
    unreported_.reset();
    if (on_frame_) on_frame_(report);
  }

  // A checkpoint of the state now, after the frames on their way to disk.
  fs::path save(bool mid_frame, const FrameStats& partial) {
    writer_.wait();
    report_written();
    progress_.mid_frame = mid_frame;
    progress_.partial = mid_frame ? partial : FrameStats{};
    return write_checkpoint(dir_, state_, progress_, state_.scene.output.checkpoint_keep);
  }

  // The checkpoint of the abandoned substep's start (or its frame's), after
  // the frames on their way to disk.
  fs::path save_rollback(Checkpoint& back) {
    writer_.wait();
    report_written();
    back.progress.stats = progress_.stats;
    back.progress.probes = progress_.probes;
    return write_checkpoint(dir_, back, state_.scene.output.checkpoint_keep);
  }

  // On a stop: the frame being written, if it is not done within
  // WRITER_GRACE_SECONDS, is given up at its writer's next check
  // (io/vdb.hpp) instead of waited for, when a checkpoint at that
  // frame's end can say so (RunProgress::pending): the state now, if it is
  // that frame's end (`mid_frame` false), else the one kept at the start of
  // the frame stepping beside it. Returns that checkpoint, written; nothing
  // when no frame is being written, when there is no such state, or when the
  // writer finished first (the caller then writes its usual checkpoint).
  std::optional<Saved> give_up_writing(bool mid_frame) {
    if (writer_.wait_for(WRITER_GRACE_SECONDS) || !in_flight_) return std::nullopt;
    std::optional<Checkpoint> at_end;
    if (!mid_frame && state_.frame == in_flight_->frame) at_end = take_checkpoint(state_, RunProgress{});
    else if (frame_start_ && frame_start_->frame == in_flight_->frame && !frame_start_->progress.mid_frame)
      at_end = frame_start_;
    if (!at_end) return std::nullopt;
    abandon_.request();
    writer_.wait();
    abandon_.reset();
    if (!abandoned_) return std::nullopt;
    abandoned_ = false;
    unreported_.reset();
    at_end->progress.pending = in_flight_->pending;
    at_end->progress.stats = progress_.stats;
    at_end->progress.probes = progress_.probes;
    return Saved{write_checkpoint(dir_, *at_end, state_.scene.output.checkpoint_keep), at_end->time, at_end->frame};
  }

  // A resumed run's first act when its checkpoint's frame was given up on a
  // stop: that frame's files from the restored state (the state they were
  // captured from, so the same bytes), its stats line and probe rows.
  void write_pending_frame() {
    const RunProgress::Pending pending = *progress_.pending;
    progress_.pending.reset();
    const FrameOutput out = state_.capture_frame();
    const auto start = Clock::now();
    for (const auto& [name, digest] : write_frame(out, dir_)) manifest_[name] = digest;
    write_manifest(dir_, manifest_);
    std::map<std::string, double> seconds = pending.seconds;
    seconds[STAGE_OUTPUT] = std::chrono::duration<double>(Clock::now() - start).count();
    progress_.stats += stats_line(nlohmann::json::parse(pending.record), seconds) + "\n";
    io::write_text_atomically(dir_ / "stats.jsonl", progress_.stats);
    if (!progress_.probes.empty()) {
      progress_.probes += pending.probe_rows;
      io::write_text_atomically(dir_ / PROBES_FILE, progress_.probes);
    }
  }

  bool stopped() const { return control_.stop && *control_.stop != 0; }

  Error interrupted(const fs::path& file) const { return interrupted(file, state_.time, state_.frame); }
  Error interrupted(const Saved& saved) const { return interrupted(saved.file, saved.time, saved.frame); }
  Error interrupted(const fs::path& file, Real time, int frame) const {
    const int signal = *control_.stop;
    const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : signal == SIGUSR1 ? "SIGUSR1" : nullptr;
    char when[96];
    std::snprintf(when, sizeof when, " at t = %.6g s (frame %d done)", time, frame);
    return Error(ExitCode::temp_fail, std::string("interrupted by ") + (name ? name : "signal " + std::to_string(signal)) +
                                          when + "; checkpoint " + file.string() + " written; continue with --resume");
  }

  Simulator& state_;
  const FrameCallback& on_frame_;
  const RunControl& control_;
  const fs::path dir_;
  const bool resumed_;
  Manifest manifest_;
  RunProgress progress_;
  SanityWarnings sanity_;
  std::optional<Real> initial_volume_;
  std::optional<Real> previous_volume_;  // the last frame's liquid volume [m^3]
  std::optional<FrameReport> unreported_;
  // What a stop inside a substep rolls back to (RunControl::abandonable_seconds):
  // the checkpoint of the last long substep's start, or of the frame's start,
  // held until the frame ends; and the cancellation armed during each substep.
  const double estimated_substep_seconds_ = state_.estimate_substep().seconds;
  double last_substep_seconds_ = 0;
  Clock::time_point substep_started_;
  std::optional<Checkpoint> frame_start_;
  std::optional<Checkpoint> rollback_;
  std::optional<CancelScope> cancel_;
  // The frame on writer_ (give_up_writing): its number and stats line, and
  // whether its job gave it up on abandon_ (set by the job, read after a wait).
  struct InFlight {
    int frame = 0;
    RunProgress::Pending pending;
  };
  std::optional<InFlight> in_flight_;
  AbandonRequest abandon_;
  bool abandoned_ = false;
  // Last: destroyed (finishing its job, which uses the members above) first.
  BackgroundTask writer_;
};

}  // namespace

void run(Simulator& sim, const FrameCallback& on_frame, const RunControl& control) {
  FrameLoop(sim, on_frame, control).run();
}

}  // namespace fsicut::sim
