#include "lib/checkpoint/reports.hpp"

namespace fsicut::checkpoint {

void put(ByteWriter& w, const linsolve::Report& s) {
  w.u8(s.converged ? 1 : 0);
  w.u8(s.met_tolerance ? 1 : 0);
  w.i32(s.iterations);
  w.f64(s.relative_residual);
  w.f64(s.round_off_floor);
  w.i32(s.unknowns);
  w.str(s.failure);
}

void get(ByteReader& r, linsolve::Report& s) {
  s.converged = r.u8() != 0;
  s.met_tolerance = r.u8() != 0;
  s.iterations = r.i32();
  s.relative_residual = r.f64();
  s.round_off_floor = r.f64();
  s.unknowns = r.i32();
  s.failure = r.str();
}

void put(ByteWriter& w, const coupling::PartitionedReport& p) {
  w.u8(p.converged ? 1 : 0);
  w.i32(p.iterations);
  w.f64(p.interface_residual);
  w.f64(p.fluid_seconds);
  w.f64(p.solid_seconds);
  w.f64(p.interface_seconds);
}

void get(ByteReader& r, coupling::PartitionedReport& p) {
  p.converged = r.u8() != 0;
  p.iterations = r.i32();
  p.interface_residual = r.f64();
  p.fluid_seconds = r.f64();
  p.solid_seconds = r.f64();
  p.interface_seconds = r.f64();
}

}  // namespace fsicut::checkpoint
