#include "lib/core/cancel.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "lib/core/parallel.hpp"

namespace fsicut {
namespace {

std::atomic<const volatile std::sig_atomic_t*> armed{nullptr};
std::atomic<double> grace{0};        // CancelScope's grace period [s]
std::atomic<double> seen_at{-1};     // when a poll first saw the flag set (steady clock [s]); -1: not yet

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The armed flag is set and its grace period is over.
bool cancel_due() {
  const volatile std::sig_atomic_t* flag = armed.load(std::memory_order_relaxed);
  if (!flag || *flag == 0) return false;
  const double wait = grace.load(std::memory_order_relaxed);
  if (wait <= 0) return true;
  double first = seen_at.load(std::memory_order_relaxed);
  if (first < 0) {
    first = now();
    seen_at.store(first, std::memory_order_relaxed);
  }
  return now() - first >= wait;
}
std::atomic<int> abandoned_running{0};  // jobs abandoned and not yet finished

// What a job's thread and its caller share: owned by both, so either may go first.
struct JobState {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  bool abandoned = false;
  std::exception_ptr error;
};

}  // namespace

void poll_cancel() {
  if (cancel_due()) throw Cancelled();
}

bool abandonable() { return armed.load(std::memory_order_relaxed) != nullptr; }

void run_abandonable(const char* name, std::function<void()> job) {
  if (!abandonable()) {
    job();
    return;
  }
  poll_cancel();
  auto state = std::make_shared<JobState>();
  const int team = threads();
  std::thread worker([state, team, name, job = std::move(job)] {
    pthread_setname_np(pthread_self(), name);
    // OpenMP's thread count is per thread: a new thread starts with the default.
    set_threads(team);
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(state->mutex);
    state->done = true;
    state->error = error;
    if (state->abandoned) abandoned_running.fetch_sub(1);
    state->finished.notify_all();
  });
  std::unique_lock<std::mutex> lock(state->mutex);
  while (!state->done) {
    state->finished.wait_for(lock, std::chrono::duration<double>(ABANDON_POLL_SECONDS));
    if (state->done) break;
    if (cancel_due()) {
      state->abandoned = true;
      abandoned_running.fetch_add(1);
      lock.unlock();
      worker.detach();
      throw Cancelled();
    }
  }
  lock.unlock();
  worker.join();
  if (state->error) std::rethrow_exception(state->error);
}

int abandoned_jobs() { return abandoned_running.load(); }

CancelScope::CancelScope(const volatile std::sig_atomic_t* flag, double grace_seconds) {
  grace.store(grace_seconds, std::memory_order_relaxed);
  seen_at.store(-1, std::memory_order_relaxed);
  armed.store(flag, std::memory_order_relaxed);
}

CancelScope::~CancelScope() { armed.store(nullptr, std::memory_order_relaxed); }

}  // namespace fsicut
