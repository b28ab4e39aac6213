#pragma once
// Snapshots shared by the tests of lib/checkpoint.
#include <string>

#include "lib/checkpoint/format.hpp"
#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::test {

// A small snapshot of frame `frame` at t = 0.5 s per frame: its clock, and a
// stats line naming the frame (sim/snapshot.cpp writes the real ones).
inline checkpoint::Snapshot snapshot_at(int frame) {
  checkpoint::Snapshot s;
  s.fsicut_version = "test";
  s.scene = "{}";
  checkpoint::add_section(s, checkpoint::SECTION_CLOCK, [&](checkpoint::ByteWriter& w) {
    w.f64(0.5 * frame);
    w.i32(frame);
    w.u8(0);
  });
  checkpoint::add_section(s, checkpoint::SECTION_STATS, [&](checkpoint::ByteWriter& w) {
    w.str("{\"frame\":" + std::to_string(frame) + "}\n");
  });
  return s;
}

}  // namespace fsicut::test
