#include "lib/core/background_task.hpp"

#include <chrono>
#include <utility>

namespace fsicut {

BackgroundTask::BackgroundTask() : thread_([this] { loop(); }) {}

BackgroundTask::~BackgroundTask() {
  finish();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void BackgroundTask::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return quit_ || job_; });
    if (!job_) return;
    lock.unlock();
    std::exception_ptr error;
    try {
      job_();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    job_ = nullptr;
    error_ = error;
    changed_.notify_all();
  }
}

double BackgroundTask::wait() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !job_; });
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  return waited;
}

double BackgroundTask::run(std::function<void()> job) {
  const double waited = wait();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
  }
  changed_.notify_all();
  return waited;
}

void BackgroundTask::finish() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !job_; });
  error_ = nullptr;
}

bool BackgroundTask::wait_for(double seconds) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return !job_; });
}

bool BackgroundTask::idle() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return !job_;
}

}  // namespace fsicut
