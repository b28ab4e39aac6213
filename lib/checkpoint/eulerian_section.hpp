#pragma once
// Section "EULR" of a checkpoint (format.hpp): the eulerian scheme's world.
#include "lib/checkpoint/bytes.hpp"
#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::checkpoint {

void put_eulerian(ByteWriter& w, const EulerianRecord& e);

// Throws CorruptError (through `r`) on malformed content.
EulerianRecord get_eulerian(ByteReader& r);

}  // namespace fsicut::checkpoint
