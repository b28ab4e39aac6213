#include "lib/core/cancel.hpp"

#include <atomic>

namespace fsicut {
namespace {

std::atomic<const volatile std::sig_atomic_t*> armed{nullptr};

}  // namespace

void poll_cancel() {
  const volatile std::sig_atomic_t* flag = armed.load(std::memory_order_relaxed);
  if (flag && *flag != 0) throw Cancelled();
}

CancelScope::CancelScope(const volatile std::sig_atomic_t* flag) { armed.store(flag, std::memory_order_relaxed); }

CancelScope::~CancelScope() { armed.store(nullptr, std::memory_order_relaxed); }

}  // namespace fsicut
