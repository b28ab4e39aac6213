#pragma once
// Wall-clock seconds per named stage, accumulated over a frame.
#include <chrono>
#include <map>
#include <string>

namespace fsicut {

class StageTimes {
 public:
  void add(const std::string& stage, double seconds) { seconds_[stage] += seconds; }
  const std::map<std::string, double>& seconds() const { return seconds_; }
  void clear() { seconds_.clear(); }

 private:
  std::map<std::string, double> seconds_;
};

// Adds the lifetime of the scope to `times[stage]`.
class ScopedStage {
 public:
  ScopedStage(StageTimes& times, std::string stage)
      : times_(times), stage_(std::move(stage)), start_(std::chrono::steady_clock::now()) {}
  ~ScopedStage() {
    times_.add(stage_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  StageTimes& times_;
  std::string stage_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace fsicut
