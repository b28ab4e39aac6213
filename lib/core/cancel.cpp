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
  const volatile std::sig_atomic_t* flag = armed.load(std::memory_order_relaxed);
  if (flag && *flag != 0) throw Cancelled();
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
    const volatile std::sig_atomic_t* flag = armed.load(std::memory_order_relaxed);
    if (flag && *flag != 0) {
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

CancelScope::CancelScope(const volatile std::sig_atomic_t* flag) { armed.store(flag, std::memory_order_relaxed); }

CancelScope::~CancelScope() { armed.store(nullptr, std::memory_order_relaxed); }

}  // namespace fsicut
