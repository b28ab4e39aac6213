#pragma once
// One job at a time on a thread of its own, for work that may overlap the
// caller's: writing a frame while the next one steps.
//
// At most one job is in flight: run() first waits for the previous one, so the
// memory a job holds is bounded by one job's. A job's exception is kept and
// rethrown, on the caller's thread, by the next run() or wait(); finish()
// waits and drops it, for a caller already unwinding from an error of its own.
// The destructor finishes the job in flight the same way.
//
// A job must not use OpenMP: a second thread forking OpenMP teams beside the
// caller's would put twice as many threads on the cores as there are.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace fsicut {

class BackgroundTask {
 public:
  BackgroundTask();
  ~BackgroundTask();
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // Waits for the job in flight (rethrowing its exception; `job` is then not
  // started), then starts `job`. Returns the seconds spent waiting.
  double run(std::function<void()> job);
  // Waits for the job in flight, then rethrows its exception if it threw.
  // Returns the seconds spent waiting.
  double wait();
  // Waits for the job in flight and drops its exception. Never throws.
  void finish() noexcept;
  // Whether no job is in flight (without waiting).
  bool idle() const;
  // Waits at most `seconds` for the job in flight; whether none is in flight
  // then. Never throws (wait() rethrows the job's exception).
  bool wait_for(double seconds) const;

 private:
  void loop();

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::function<void()> job_;  // the job in flight, empty when idle
  std::exception_ptr error_;   // the last job's exception, until rethrown
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace fsicut
