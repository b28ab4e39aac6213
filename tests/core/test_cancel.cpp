#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <stdexcept>
#include <thread>

#include "lib/core/cancel.hpp"
#include "lib/core/parallel.hpp"

using namespace fsicut;
using namespace std::chrono_literals;

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("run_abandonable: in place when disarmed, else on its own thread with the caller's thread count") {
  std::thread::id where;
  run_abandonable("test-job", [&] { where = std::this_thread::get_id(); });
  CHECK(where == std::this_thread::get_id());
  CHECK_FALSE(abandonable());

  volatile std::sig_atomic_t stop = 0;
  const int before = threads();
  set_threads(1);
  {
    const CancelScope scope(&stop);
    CHECK(abandonable());
    auto seen = std::make_shared<int>(0);
    auto id = std::make_shared<std::thread::id>();
    run_abandonable("test-job", [seen, id] {
      *seen = threads();
      *id = std::this_thread::get_id();
    });
    CHECK(*id != std::this_thread::get_id());
    CHECK(*seen == 1);
    CHECK_THROWS_WITH_AS(run_abandonable("test-job", [] { throw std::runtime_error("job failed"); }), "job failed",
                         std::runtime_error);
    // A stop already requested: the job does not start.
    stop = SIGTERM;
    auto started = std::make_shared<bool>(false);
    CHECK_THROWS_AS(run_abandonable("test-job", [started] { *started = true; }), Cancelled);
    CHECK_FALSE(*started);
  }
  set_threads(before);
  CHECK_FALSE(abandonable());
  CHECK(abandoned_jobs() == 0);
}

TEST_CASE("run_abandonable: a stop abandons a running job within the poll interval and the job finishes alone") {
  volatile std::sig_atomic_t stop = 0;
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  std::chrono::steady_clock::time_point requested;
  {
    const CancelScope scope(&stop);
    std::thread requester([&] {
      std::this_thread::sleep_for(100ms);
      requested = std::chrono::steady_clock::now();
      stop = SIGTERM;
    });
    // The job stands for a factorization that looks at nothing until it ends.
    CHECK_THROWS_AS(run_abandonable("test-job",
                                    [release, finished] {
                                      while (!*release) std::this_thread::sleep_for(1ms);
                                      *finished = true;
                                    }),
                    Cancelled);
    const double waited = since(requested);
    requester.join();
    MESSAGE("abandoned " << waited << " s after the stop request");
    CHECK(waited < 0.5);
  }
  CHECK(abandoned_jobs() == 1);
  CHECK_FALSE(*finished);
  *release = true;
  const auto start = std::chrono::steady_clock::now();
  while (abandoned_jobs() > 0 && since(start) < 10) std::this_thread::sleep_for(1ms);
  CHECK(abandoned_jobs() == 0);
  CHECK(*finished);
}
