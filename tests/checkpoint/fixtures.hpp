#pragma once
// Snapshots shared by the tests of lib/checkpoint.
#include <string>

#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::test {

// A small snapshot of frame `frame` at t = 0.5 s per frame, its stats line
// naming the frame.
inline checkpoint::Snapshot snapshot_at(int frame) {
  checkpoint::Snapshot s;
  s.frame = frame;
  s.time = 0.5 * frame;
  s.fsicut_version = "test";
  s.scene = "{}";
  s.stats = "{\"frame\":" + std::to_string(frame) + "}\n";
  return s;
}

}  // namespace fsicut::test
