#pragma once
// Progress on stderr: on a terminal one live line (frame k/N, simulated time,
// substeps, seconds per frame, ETA); in a log one plain line per frame.
#include <string>

#include "lib/sim/run.hpp"

namespace fsicut::app {

class Progress {
 public:
  // Frames first_frame + 1 .. frames are to be simulated (first_frame > 0
  // when resuming).
  Progress(int first_frame, int frames, bool enabled);
  sim::FrameCallback callback();
  // Ends the live line and says where the output went.
  void finish(const std::string& output_directory);

 private:
  void report(const sim::FrameReport& r);
  bool enabled_;
  bool terminal_;
  int first_frame_;
  int frames_;
  double total_seconds_ = 0;
  int simulated_frames_ = 0;
};

}  // namespace fsicut::app
