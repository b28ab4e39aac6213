#include "app/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace fsicut::app {

Progress::Progress(int first_frame, int frames, bool enabled)
    : enabled_(enabled), terminal_(isatty(fileno(stderr)) != 0), first_frame_(first_frame), frames_(frames) {}

sim::FrameCallback Progress::callback() {
  return [this](const sim::FrameReport& r) { report(r); };
}

void Progress::report(const sim::FrameReport& r) {
  if (r.frame > first_frame_) {
    total_seconds_ += r.seconds;
    ++simulated_frames_;
  }
  if (!enabled_) return;
  const double per_frame = simulated_frames_ > 0 ? total_seconds_ / simulated_frames_ : 0;
  const double eta = per_frame * (frames_ - r.frame);
  char line[256];
  std::snprintf(line, sizeof line, "frame %d/%d  t=%.4f s  %d substeps  %.2f s/frame  ETA %.0f s", r.frame, frames_,
                r.time, r.substeps, r.seconds, eta);
  if (terminal_) std::fprintf(stderr, "\r\033[K%s", line);
  else std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

void Progress::finish(const std::string& output_directory) {
  if (!enabled_) return;
  if (terminal_) std::fputc('\n', stderr);
  std::fprintf(stderr, "fsicut: %d frames in %.1f s, output in %s\n", simulated_frames_, total_seconds_,
               output_directory.c_str());
}

}  // namespace fsicut::app
