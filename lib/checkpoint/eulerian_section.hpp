#pragma once
// Section "EULR" of a checkpoint (format.hpp): the eulerian scheme's world.
// Layout: the shared velocity and multiplier; per solid u, v, valid nodes
// and warm start; the smoke; the surfaces; the frame tally; then, only when
// some solid is plastic, the solid count and each solid's F_p at its material
// samples (eulerian/plasticity.hpp; empty for an elastic one). A section that ends after the tally has no plastic solid.
#include "lib/checkpoint/bytes.hpp"
#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::checkpoint {

void put_eulerian(ByteWriter& w, const EulerianRecord& e);

// Throws CorruptError (through `r`) on malformed content.
EulerianRecord get_eulerian(ByteReader& r);

}  // namespace fsicut::checkpoint
