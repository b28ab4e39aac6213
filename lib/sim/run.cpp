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
#include "lib/sim/cost.hpp"
#include "lib/sim/frame_output.hpp"
#include "lib/sim/probes.hpp"
#include "lib/sim/sanity.hpp"
#include "lib/sim/stats.hpp"
#include "lib/sim/step.hpp"

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

// manifest.tsv: one line per frame file fsicut wrote into the folder, "name
// TAB size TAB fnv1a (16 hex digits)", sorted by name, rewritten atomically
// after every frame's outputs. --resume checks the files it keeps against it.
constexpr const char* MANIFEST_FILE = "manifest.tsv";
// The probes' samples, one row per substep (sim/probes.hpp), rewritten whole after every frame like stats.jsonl.
constexpr const char* PROBES_FILE = "probes.csv";
using Manifest = std::map<std::string, io::FileDigest>;

Manifest read_manifest(const fs::path& dir) {
  Manifest manifest;
  std::ifstream in(dir / MANIFEST_FILE);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    io::FileDigest d;
    // A damaged line loses its entry, and its frame counts as unverified.
    if (std::getline(fields, name, '\t') && fields >> d.size >> std::hex >> d.fnv1a) manifest[name] = d;
  }
  return manifest;
}

void write_manifest(const fs::path& dir, const Manifest& manifest) {
  std::string text;
  char line[64];
  for (const auto& [name, d] : manifest) {
    std::snprintf(line, sizeof line, "\t%llu\t%016llx\n", static_cast<unsigned long long>(d.size),
                  static_cast<unsigned long long>(d.fnv1a));
    text += name + line;
  }
  io::write_text_atomically(dir / MANIFEST_FILE, text);
}

// Whether every output file of the current frame is on disk with the size and
// checksum the manifest recorded when it was written. A file the manifest does
// not know (an older fsicut wrote it, or the manifest was lost) does not count:
// rewriting a frame is cheap, keeping a damaged one costs a render.
bool frame_verified(const FrameOutput& out, const fs::path& dir, const Manifest& manifest) {
  for (const std::string& name : file_names(out)) {
    const auto recorded = manifest.find(name);
    if (recorded == manifest.end()) return false;
    const std::optional<io::FileDigest> on_disk = io::digest_file(dir / name);
    if (!on_disk || *on_disk != recorded->second) return false;
  }
  return true;
}

// The frames up to `last` that a resumed run keeps without simulating them
// again, checked against the manifest by size and checksum (each file is read
// back once: FNV-1a runs at about 0.4 GB/s, 200 MB in 0.47 s, far less than
// simulating the frame took). Returns the files that are missing, of another
// size or another checksum (`damaged`) and those the manifest does not list
// (`unlisted`: written by an older fsicut, or the manifest was lost).
struct EarlierFrames {
  std::vector<std::string> damaged, unlisted;
};
EarlierFrames check_earlier_frames(const SimState& state, const fs::path& dir, const Manifest& manifest, int last) {
  EarlierFrames out;
  for (int frame = 0; frame <= last; ++frame)
    for (const std::string& name : frame_file_names(state, frame)) {
      const auto recorded = manifest.find(name);
      if (recorded == manifest.end()) {
        out.unlisted.push_back(name);
        continue;
      }
      const std::optional<io::FileDigest> on_disk = io::digest_file(dir / name);
      if (!on_disk || *on_disk != recorded->second) out.damaged.push_back(name);
    }
  return out;
}

std::string list_names(const std::vector<std::string>& names) {
  constexpr std::size_t SHOWN = 10;
  std::string list;
  for (std::size_t i = 0; i < std::min(names.size(), SHOWN); ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > SHOWN) list += " and " + std::to_string(names.size() - SHOWN) + " more";
  return list;
}

// Whether `name` is "<stem>.<4 or more digits><extension>".
bool is_numbered(const std::string& name, const std::string& stem, const std::string& extension) {
  if (name.size() < stem.size() + 1 + 4 + extension.size() || name.compare(0, stem.size() + 1, stem + ".") != 0 ||
      name.compare(name.size() - extension.size(), extension.size(), extension) != 0)
    return false;
  const std::string digits = name.substr(stem.size() + 1, name.size() - stem.size() - 1 - extension.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// A fresh run (not --resume) starts from an empty set of frames: it deletes
// the frame files of an earlier run in the folder, so a shorter run does not
// leave the longer run's later frames beside its own. Only names fsicut
// writes: `liquid.NNNN.vdb`, `<solid>.NNNN.obj` for this scene's solids, and
// every file the earlier run's manifest lists (its solids may have had other
// names), then the manifest itself.
void remove_earlier_frames(const SimState& state, const fs::path& dir) {
  const Manifest earlier = read_manifest(dir);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // A manifest entry counts only if it has the form of a frame file: a
    // damaged or hand-edited manifest must not delete anything else.
    const std::size_t dot = name.find('.');
    const bool frame_form = dot != std::string::npos && (is_numbered(name, name.substr(0, dot), ".obj") ||
                                                         is_numbered(name, name.substr(0, dot), ".vdb"));
    bool ours = (earlier.count(name) > 0 && frame_form) || is_numbered(name, "liquid", ".vdb");
    for (const solid::Body& b : state.solids) ours = ours || is_numbered(name, b.name, ".obj");
    std::error_code ignored;
    if (ours && it->is_regular_file(ignored)) fs::remove(it->path(), ignored);
  }
  std::error_code ignored;
  fs::remove(dir / MANIFEST_FILE, ignored);
  fs::remove(dir / PROBES_FILE, ignored);
}

// Deletes the temporaries (io/atomic.hpp: `.<name>.tmp-<pid>-<n>`) a killed
// run left in `dir`: SIGKILL or a power cut between creating one and renaming
// it leaves it behind, and nothing else would ever remove it. Only those of
// processes that no longer exist: a live writer's temporary is not stale.
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t tag = name.rfind(".tmp-");
    if (name.empty() || name[0] != '.' || tag == std::string::npos) continue;
    const std::string rest = name.substr(tag + std::strlen(".tmp-"));
    const std::size_t dash = rest.find('-');
    constexpr std::size_t MAX_PID_DIGITS = 9;  // pid_t is 32-bit: longer is not our name
    if (dash == 0 || dash == std::string::npos || dash > MAX_PID_DIGITS ||
        !std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; }))
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
}

FrameStats empty_stats(const SimState& state) {
  FrameStats st;
  st.frame = state.frame;
  st.time = state.time;
  for (const char* stage : {STAGE_SOLID_POSITIONS, STAGE_ADVECTION, STAGE_FORCES, STAGE_DISTANCE_FIELDS,
                            STAGE_PROJECTION, STAGE_DENSITY_CORRECTION, STAGE_EXTRAPOLATION, STAGE_OUTPUT})
    st.seconds[stage] = 0;
  return st;
}

// Checks or clears the output folder before anything is written, then writes
// run.json. Resuming: a frame up to the checkpoint that is not what was written
// cannot be rewritten without simulating it again, and going on would finish the
// run with a bad frame in it.
void prepare_folder(const SimState& state, const fs::path& dir, const Manifest& manifest, bool resumed) {
  if (resumed) {
    const EarlierFrames earlier = check_earlier_frames(state, dir, manifest, state.frame);
    if (!earlier.damaged.empty())
      throw Error(ExitCode::data,
                  "cannot resume in " + dir.string() + ": frame files up to the checkpoint (frame " +
                      std::to_string(state.frame) + ") are missing or differ from manifest.tsv (size or checksum): " +
                      list_names(earlier.damaged) +
                      "; they cannot be rewritten without simulating them again: restore them, or run without "
                      "--resume to regenerate every frame");
    if (!earlier.unlisted.empty())
      log::warn("frame files up to the checkpoint that manifest.tsv does not list are kept unverified: " +
                list_names(earlier.unlisted));
  } else {
    remove_earlier_frames(state, dir);
  }
  io::write_text_atomically(dir / "run.json", run_record(state, threads()));
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
 public:
  FrameLoop(SimState& state, const FrameCallback& on_frame, const RunControl& control)
      : state_(state), on_frame_(on_frame), control_(control), dir_(state.scene.output.directory),
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
    prepare_folder(state_, dir_, manifest_, resumed_);
    if (resumed_) progress_ = *control_.resumed;
    else checkpoint::remove_all(dir_);
    if (resumed_) initial_volume_ = first_liquid_volume(progress_.stats);
    if (resumed_) previous_volume_ = last_liquid_volume(progress_.stats);
    else if (state_.liquid) initial_volume_ = liquid_volume(state_);
    if (!resumed_) {
      progress_.probes = probes_header(state_.probes);
      FrameStats st = empty_stats(state_);
      finish_frame(st, Clock::now(), 0);
    }
    while (state_.frame < state_.scene.time.frames) {
      report_written();
      if (stopped()) throw interrupted(save(progress_.mid_frame, progress_.partial));
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
    // A stop request is honoured after the substep under way; at the frame's
    // end it waits for the frame's outputs.
    AdvanceHooks hooks;
    hooks.observe = control_.observe;
    hooks.before_substep = [&](const SimState&, const FrameStats& tally) {
      substep_started_ = Clock::now();
      if (!control_.stop || std::max(last_substep_seconds_, estimated_substep_seconds_) <= control_.abandonable_seconds)
        return;
      FrameStats partial = tally;
      for (const auto& [stage, seconds] : times.seconds()) partial.seconds[stage] = seconds;
      const bool inside = tally.substeps > 0;
      rollback_ = to_snapshot(state_, RunProgress{{}, {}, inside, inside ? partial : FrameStats{}});
      cancel_.emplace(control_.stop);
    };
    hooks.after_substep = [&](const SimState&, const StepReport&) {
      cancel_.reset();
      rollback_.reset();
      last_substep_seconds_ = std::chrono::duration<double>(Clock::now() - substep_started_).count();
      report_written();
      if (stopped() && end - state_.time > FRAME_END_SLACK / state_.scene.time.fps) {
        for (const auto& [stage, seconds] : times.seconds()) st.seconds[stage] = seconds;
        throw interrupted(save(true, st));
      }
    };
    try {
      advance_frame(state_, st, times, hooks);
    } catch (const Cancelled&) {
      cancel_.reset();
      throw interrupted(save_rollback(), rollback_->time, rollback_->frame);
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
    FrameOutput out = capture_frame(state_);
    nlohmann::json record = frame_record(state_, st);
    const LiquidVolumes volumes{initial_volume_, previous_volume_,
                                state_.liquid ? std::optional<Real>(record["liquid_volume"].get<Real>()) : std::nullopt};
    const int every = scene.output.checkpoint_every;
    // A checkpoint never refers to a frame that is not on disk: the job writes
    // it after the frame. The last frame gets one too, so a run can be extended.
    std::optional<checkpoint::Snapshot> snapshot;
    if (every > 0 && state_.frame > 0 && (state_.frame % every == 0 || state_.frame == scene.time.frames))
      snapshot = to_snapshot(state_, RunProgress{});
    const FrameReport report{state_.frame, scene.time.frames, state_.time, st.substeps, 0};

    const Real waited = writer_.wait();
    report_written();
    st.seconds[OUTPUT_WAIT] = waited;
    const Real wall = std::chrono::duration<double>(Clock::now() - started).count();
    st.seconds[OTHER] = std::max(0.0, wall - stepped - waited);
    unreported_ = report;
    unreported_->seconds = wall;
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
                 const std::string& probe_rows, std::optional<checkpoint::Snapshot> snapshot) {
    const auto start = Clock::now();
    if (!resumed_ || control_.rewrite_existing || !frame_verified(out, dir_, manifest_)) {
      for (const auto& [name, digest] : write_frame(out, dir_)) manifest_[name] = digest;
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
      snapshot->stats = progress_.stats;
      snapshot->probes = progress_.probes;
      checkpoint::write(dir_, *snapshot, state_.scene.output.checkpoint_keep);
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

  // The checkpoint of the abandoned substep's start, after the frames on
  // their way to disk.
  fs::path save_rollback() {
    writer_.wait();
    report_written();
    rollback_->stats = progress_.stats;
    rollback_->probes = progress_.probes;
    return checkpoint::write(dir_, *rollback_, state_.scene.output.checkpoint_keep);
  }

  bool stopped() const { return control_.stop && *control_.stop != 0; }

  Error interrupted(const fs::path& file) const { return interrupted(file, state_.time, state_.frame); }
  Error interrupted(const fs::path& file, Real time, int frame) const {
    const int signal = *control_.stop;
    const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : signal == SIGUSR1 ? "SIGUSR1" : nullptr;
    char when[96];
    std::snprintf(when, sizeof when, " at t = %.6g s (frame %d done)", time, frame);
    return Error(ExitCode::temp_fail, std::string("interrupted by ") + (name ? name : "signal " + std::to_string(signal)) +
                                          when + "; checkpoint " + file.string() + " written; continue with --resume");
  }

  SimState& state_;
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
  // The substep under way (RunControl::abandonable_seconds): the checkpoint of its start
  // while it can be abandoned, and the cancellation armed meanwhile.
  const double estimated_substep_seconds_ = estimate_substep(state_).seconds;
  double last_substep_seconds_ = 0;
  Clock::time_point substep_started_;
  std::optional<checkpoint::Snapshot> rollback_;
  std::optional<CancelScope> cancel_;
  // Last: destroyed (finishing its job, which uses the members above) first.
  BackgroundTask writer_;
};

}  // namespace

void run(SimState& state, const FrameCallback& on_frame, const RunControl& control) {
  FrameLoop(state, on_frame, control).run();
}

}  // namespace fsicut::sim
