// SPDX-License-Identifier: MIT
// core::parallel_for: plain helper threads by default (nothing left behind, no
// affinity change), and the opt-in worker pool (use_worker_pool()).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <srs/core/parallel.hpp>

#if defined(__linux__)
#include <pthread.h>  // pthread_getaffinity_np, pthread_self
#include <sched.h>    // cpu_set_t, CPU_EQUAL
#endif

namespace {
using srs::core::parallel_for;

/// The worker pool for the scope of a test, then plain threads again.
struct PoolScope {
  PoolScope() { srs::core::use_worker_pool(); }
  ~PoolScope() { srs::core::use_plain_threads(); }
  PoolScope(const PoolScope&) = delete;
  PoolScope& operator=(const PoolScope&) = delete;
};

#if defined(__linux__)
/// Threads of this process now (/proc/self/task).
std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}
#endif

/// How often each task ran, and the largest slot seen.
struct Tally {
  explicit Tally(std::size_t n) : runs(n) {}
  std::vector<std::atomic<int>> runs;
  std::atomic<unsigned> top_slot{0};
  void operator()(std::size_t task, unsigned slot) {
    ++runs[task];
    unsigned seen = top_slot.load();
    while (slot > seen && !top_slot.compare_exchange_weak(seen, slot)) {
    }
  }
  bool each_once() const {
    for (const auto& r : runs)
      if (r.load() != 1) return false;
    return true;
  }
};
}  // namespace

TEST_CASE("parallel_for runs every task exactly once, with slots below the thread count") {
  for (const unsigned threads : {1u, 2u, 3u, 8u}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000}}) {
      CAPTURE(threads);
      CAPTURE(n);
      Tally tally(n);
      parallel_for(n, threads, [&](std::size_t task, unsigned slot) { tally(task, slot); });
      CHECK(tally.each_once());
      CHECK(tally.top_slot.load() < threads);
    }
  }
}

TEST_CASE("parallel_for with one thread runs the tasks in order on the calling thread") {
  std::vector<std::size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  bool same_thread = true;
  parallel_for(50, 1, [&](std::size_t task, unsigned slot) {
    order.push_back(task);
    same_thread = same_thread && std::this_thread::get_id() == caller && slot == 0;
  });
  REQUIRE(order.size() == 50);
  for (std::size_t k = 0; k < order.size(); ++k) CHECK(order[k] == k);
  CHECK(same_thread);
}

#if defined(__linux__)
TEST_CASE("parallel_for by default leaves no thread behind and changes no affinity") {
  REQUIRE(!srs::core::using_worker_pool());
  cpu_set_t before;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof before, &before) == 0);
  const std::size_t threads_before = thread_count();
  std::atomic<std::size_t> peak{0};
  std::mutex m;
  std::vector<std::thread::id> ran_on;
  parallel_for(40, 3, [&](std::size_t, unsigned) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::size_t now = thread_count();
    std::size_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::lock_guard<std::mutex> lock(m);
    ran_on.push_back(std::this_thread::get_id());
  });
  // Helpers ran (the call was parallel) and are gone once it returns: nothing parks or spins.
  bool helped = false;
  for (const std::thread::id id : ran_on) helped = helped || id != std::this_thread::get_id();
  CHECK(helped);
  CHECK(peak.load() > threads_before);
  CHECK(thread_count() == threads_before);
  cpu_set_t after;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof after, &after) == 0);
  CHECK(CPU_EQUAL(&before, &after));
  CHECK(!srs::core::detail::WorkerPool::created().load());
}
#endif

TEST_CASE("parallel_for shares tasks with pooled helpers") {
  const PoolScope pool;
  // Slow tasks: a free helper takes some of them while the caller is busy.
  std::mutex m;
  std::vector<std::thread::id> ran_on;
  parallel_for(40, 2, [&](std::size_t, unsigned) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(m);
    ran_on.push_back(std::this_thread::get_id());
  });
  REQUIRE(ran_on.size() == 40);
  bool helped = false;
  for (const std::thread::id id : ran_on) helped = helped || id != std::this_thread::get_id();
  CHECK(helped);
  CHECK(srs::core::detail::WorkerPool::shared().size() >= 1);
  // Again after the workers have gone to sleep (longer than their spin).
  std::this_thread::sleep_for(srs::core::detail::WorkerPool::spin() * 3);
  ran_on.clear();
  parallel_for(40, 2, [&](std::size_t, unsigned) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(m);
    ran_on.push_back(std::this_thread::get_id());
  });
  REQUIRE(ran_on.size() == 40);
  helped = false;
  for (const std::thread::id id : ran_on) helped = helped || id != std::this_thread::get_id();
  CHECK(helped);
}

TEST_CASE("parallel_for rethrows the exception of the lowest-numbered throwing task") {
  for (const bool pooled : {false, true}) {
    CAPTURE(pooled);
    if (pooled) srs::core::use_worker_pool();
    for (const unsigned threads : {1u, 2u, 4u}) {
      CAPTURE(threads);
      std::atomic<int> ran{0};
      std::string what;
      try {
        parallel_for(20, threads, [&](std::size_t task, unsigned) {
          ++ran;
          if (task == 3 || task == 7) throw std::runtime_error("task " + std::to_string(task));
        });
      } catch (const std::runtime_error& e) {
        what = e.what();
      }
      // Tasks are handed out in order, so task 3 was taken (and threw) whenever 7 was.
      CHECK(what == "task 3");
      CHECK(ran.load() >= 4);   // 0..3 at least
      CHECK(ran.load() <= 20);  // no task twice; the hand-out stops after a throw
    }
    // parallel_for still works afterwards.
    Tally tally(100);
    parallel_for(100, 4, [&](std::size_t task, unsigned slot) { tally(task, slot); });
    CHECK(tally.each_once());
    srs::core::use_plain_threads();
  }
}

TEST_CASE("parallel_for nests and serves several callers at once without waiting for free workers") {
  // Callers from several threads, each nesting a second level: every task
  // runs once; a call never waits for a worker (it runs alone if none is free).
  for (const bool pooled : {false, true}) {
    CAPTURE(pooled);
    if (pooled) srs::core::use_worker_pool();
    constexpr std::size_t outer = 6, inner = 50;
    std::vector<std::atomic<int>> runs(4 * outer * inner);
    std::vector<std::thread> callers;
    for (std::size_t c = 0; c < 4; ++c)
      callers.emplace_back([&, c] {
        parallel_for(outer, 3, [&](std::size_t i, unsigned) {
          parallel_for(inner, 3, [&](std::size_t j, unsigned) { ++runs[(c * outer + i) * inner + j]; });
        });
      });
    for (std::thread& t : callers) t.join();
    bool each_once = true;
    for (const auto& r : runs) each_once = each_once && r.load() == 1;
    CHECK(each_once);
    srs::core::use_plain_threads();
  }
}

#if defined(__linux__)
TEST_CASE("parallel_for's pooled helpers run with the caller's CPU mask (the placement's exclusion is undone)") {
  // A new worker starts barred from its creator's core and restores its mask
  // once running (detail::Placement): every helper task sees the full mask.
  const PoolScope pool;
  cpu_set_t caller;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof caller, &caller) == 0);
  std::mutex m;
  std::size_t helper_tasks = 0, same_mask = 0;
  parallel_for(40, 4, [&](std::size_t, unsigned slot) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (slot == 0) return;
    cpu_set_t mine;
    const bool read = pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) == 0;
    std::lock_guard<std::mutex> lock(m);
    ++helper_tasks;
    same_mask += read && CPU_EQUAL(&mine, &caller);
  });
  CHECK(helper_tasks > 0);
  CHECK(same_mask == helper_tasks);
  cpu_set_t after;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof after, &after) == 0);
  CHECK(CPU_EQUAL(&caller, &after));  // the caller's own mask is never touched
}
#endif
