#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lib/core/background_task.hpp"

using namespace fsicut;
using namespace std::chrono_literals;

TEST_CASE("BackgroundTask: jobs run one at a time, in order, on another thread") {
  BackgroundTask task;
  CHECK(task.idle());
  std::atomic<int> running{0}, most{0}, done{0};
  std::thread::id where;
  std::vector<int> order;
  for (int n = 0; n < 4; ++n)
    task.run([&, n] {
      most = std::max(most.load(), ++running);
      std::this_thread::sleep_for(5ms);
      where = std::this_thread::get_id();
      order.push_back(n);
      --running;
      ++done;
    });
  // run() waited for each previous job: three are done, the fourth may run.
  CHECK(done >= 3);
  CHECK(task.wait() >= 0);
  CHECK(task.idle());
  CHECK(done == 4);
  CHECK(most == 1);
  CHECK(order == std::vector<int>{0, 1, 2, 3});
  const bool elsewhere = where != std::this_thread::get_id();
  CHECK(elsewhere);
}

TEST_CASE("BackgroundTask: a job's exception reaches the caller, once, and the next job is not started") {
  BackgroundTask task;
  task.run([] { throw std::runtime_error("disk full"); });
  bool started = false;
  CHECK_THROWS_WITH_AS(task.run([&] { started = true; }), "disk full", std::runtime_error);
  CHECK_FALSE(started);
  CHECK_NOTHROW(task.wait());
  task.run([] { throw std::runtime_error("again"); });
  task.finish();  // dropped
  CHECK_NOTHROW(task.wait());
}

TEST_CASE("BackgroundTask: the destructor waits for the job in flight") {
  std::atomic<bool> done{false};
  {
    BackgroundTask task;
    task.run([&] {
      std::this_thread::sleep_for(20ms);
      done = true;
    });
  }
  CHECK(done);
}
