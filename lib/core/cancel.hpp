#pragma once
// Cooperative cancellation of a long computation: a stop request (a signal
// handler's flag) honoured between the iterations of long loops (PCG and
// BiCGSTAB iterations, partitioned coupling iterations) instead of after the
// substep they belong to, which can take minutes on a large solid; and, for a
// long step that has no iterations to look between (a sparse Cholesky
// factorization, a product of large sparse matrices), by abandoning it
// (run_abandonable).
//
// The frame loop arms it (CancelScope) around every substep, which it can roll
// back (sim/run.cpp keeps a checkpoint of the state at the substep's or the
// frame's start); elsewhere poll_cancel() does nothing and run_abandonable
// runs its job in place. A scope may give the stop request a grace period:
// the substep under way is abandoned only if it has not ended that long after
// the request was first seen (a short substep is finished, its work kept). A poll costs one relaxed atomic load: cheap enough for every
// iteration. Call both only from the thread that armed it, outside OpenMP
// parallel regions (an exception must not leave one).
#include <atomic>
#include <csignal>
#include <functional>

#include "lib/core/error.hpp"

namespace fsicut {

// What poll_cancel throws: the substep under way is abandoned. ExitCode
// temp_fail (75); the frame loop catches it and says what it saved.
class Cancelled : public Error {
 public:
  Cancelled() : Error(ExitCode::temp_fail, "cancelled by a stop request") {}
};

// Throws Cancelled when a CancelScope is active, its flag is non-zero, and
// the flag has been non-zero for at least the scope's grace period.
void poll_cancel();

// True while a CancelScope is armed: run_abandonable then runs its job on a
// thread of its own, so a job's inputs must be copies it owns.
bool abandonable();

// How often [s] run_abandonable looks at the stop request while its job runs.
inline constexpr double ABANDON_POLL_SECONDS = 0.05;

// Runs job() to its end and rethrows its exception, if any. While a
// CancelScope is armed, the job runs on a thread of its own (with this
// thread's OpenMP thread count; it may use OpenMP, this thread only waits)
// and this thread looks at the stop request every ABANDON_POLL_SECONDS: on a
// stop the job is abandoned, left to finish alone with its results dropped,
// and Cancelled is thrown at once. Disarmed, job() runs here.
// Contract: the job touches only what it owns (captured by value or by
// shared_ptr): after an abandon it runs on while the caller unwinds and frees
// everything else. It must not write files or log.
// `name` (at most 15 characters) names the job's thread, as `top -H` and
// /proc/<pid>/task/<tid>/comm show it: what a run is busy with.
void run_abandonable(const char* name, std::function<void()> job);

// The abandoned jobs still running. A process that ends while one runs should
// end by std::_Exit after flushing its output (app/main.cpp): exit()'s static
// destructors would run beside it.
int abandoned_jobs();

// Asks a job on another thread (the frame writer, sim/run.cpp) to give up:
// the job calls check() at its cancellation points, which throws Abandoned
// once request() was called. The requester waits for the job to end, then
// reset()s it for the next.
class Abandoned : public Error {
 public:
  Abandoned() : Error(ExitCode::temp_fail, "abandoned on a stop request") {}
};

class AbandonRequest {
 public:
  void request() { flag_.store(true, std::memory_order_relaxed); }
  void reset() { flag_.store(false, std::memory_order_relaxed); }
  bool requested() const { return flag_.load(std::memory_order_relaxed); }
  void check() const {
    if (requested()) throw Abandoned();
  }

 private:
  std::atomic<bool> flag_{false};
};

// Arms poll_cancel with `flag` (nullptr: stays disarmed) for its lifetime;
// a stop request cancels once it has been seen for `grace_seconds` [s] (0: at
// once). Scopes do not nest: the inner one disarms on exit.
class CancelScope {
 public:
  explicit CancelScope(const volatile std::sig_atomic_t* flag, double grace_seconds = 0);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;
};

}  // namespace fsicut
