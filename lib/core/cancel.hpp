#pragma once
// Cooperative cancellation of a long computation: a stop request (a signal
// handler's flag) honoured between the iterations of long loops (PCG and
// BiCGSTAB iterations, partitioned coupling iterations) instead of after the
// substep they belong to, which can take minutes on a large solid.
//
// The frame loop arms it (CancelScope) only around a substep it can roll back
// (sim/run.cpp keeps a checkpoint of the state at the substep's start);
// elsewhere poll_cancel() does nothing. A poll costs one relaxed atomic load:
// cheap enough for every iteration. Call it only from the thread that armed
// it, outside OpenMP parallel regions (an exception must not leave one).
#include <csignal>

#include "lib/core/error.hpp"

namespace fsicut {

// What poll_cancel throws: the substep under way is abandoned. ExitCode
// temp_fail (75); the frame loop catches it and says what it saved.
class Cancelled : public Error {
 public:
  Cancelled() : Error(ExitCode::temp_fail, "cancelled by a stop request") {}
};

// Throws Cancelled when a CancelScope is active and its flag is non-zero.
void poll_cancel();

// Arms poll_cancel with `flag` (nullptr: stays disarmed) for its lifetime.
// Scopes do not nest: the inner one disarms on exit.
class CancelScope {
 public:
  explicit CancelScope(const volatile std::sig_atomic_t* flag);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;
};

}  // namespace fsicut
