#pragma once
// The checkpoint codecs of the solvers' reports, which a checkpoint written
// inside a frame keeps in its statistics so far (section CLCK, format.hpp).
// Every member is stored; a member added to one of these structs is written
// here and read here (tests/checkpoint/test_reports.cpp checks the sizes).
//   linsolve::Report             u8 converged, u8 met_tolerance, i32 iterations,
//                                f64 relative_residual, f64 round_off_floor,
//                                i32 unknowns, str failure
//   coupling::PartitionedReport  u8 converged, i32 iterations,
//                                f64 interface_residual, f64 fluid_seconds,
//                                f64 solid_seconds, f64 interface_seconds
#include "lib/checkpoint/bytes.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::checkpoint {

void put(ByteWriter& w, const linsolve::Report& report);
void get(ByteReader& r, linsolve::Report& report);

void put(ByteWriter& w, const coupling::PartitionedReport& report);
void get(ByteReader& r, coupling::PartitionedReport& report);

}  // namespace fsicut::checkpoint
