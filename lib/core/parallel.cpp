#include "lib/core/parallel.hpp"

#include <omp.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

namespace fsicut {

void use_passive_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  execv("/proc/self/exe", argv);
}

void set_threads(int n) {
  if (n <= 0) {
    const char* env = std::getenv("OMP_NUM_THREADS");
    n = env ? std::atoi(env) : 0;
    if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
    if (n <= 0) n = 1;
  }
  omp_set_num_threads(n);
}

int threads() { return omp_get_max_threads(); }

}  // namespace fsicut
