// SPDX-License-Identifier: MIT
/// @file srs/core/parallel.hpp
/// `parallel_for`: the tasks 0..n-1 run on the calling thread and on up to
/// `threads - 1` helper threads.
///
/// By default the helpers are plain threads, started for the call and joined
/// before it returns: a library call in an application leaves no thread
/// behind, changes no thread's CPU affinity and never spins on an idle core.
///
/// A program that runs parallel sections back to back (srs-bench: a user's
/// folds, then ICI's LOWESS fits, thousands of times) can opt in to a
/// process-wide pool of parked workers with use_worker_pool(). Why a pool,
/// placed and kept busy: on Linux a new or woken thread tends to be queued on
/// the core of the thread that created or woke it. On a 2-core VM
/// (`perf sched`, docs/performance.md), a fold thread spawned or woken there
/// often waited 10–15 ms behind its parent before the load balancer moved it,
/// in a 5-fold run of about 70 ms. So, with the pool, a new worker is started
/// on another core (detail::Placement: its affinity briefly excludes its
/// creator's core, then is restored), and a worker that has finished its tasks
/// keeps looking for new ones for WorkerPoolOptions::spin (5 ms, yielding its
/// core between looks) before it sleeps.
///
/// Rules (both modes):
///   * the caller always runs tasks itself, and waits only for the tasks
///     helpers have taken, so a call never waits for a free worker: with every
///     pooled worker busy (another user's folds, a nested call) it simply runs alone;
///   * tasks are handed out in index order (an atomic counter); which thread
///     runs a task is not specified, so a task must not depend on it (results
///     written per task are the same with any number of threads);
///   * `body(task, slot)`: slot 0 is the caller, helpers get 1..threads-1 (for
///     per-thread scratch);
///   * a task that throws stops the hand-out of further tasks; once the tasks
///     already taken are done, the exception of the lowest-numbered throwing
///     task is rethrown to the caller;
///   * with the pool, it grows to the largest `threads - 1` asked for; its
///     workers sleep on a condition variable between bursts and are joined at exit.
#pragma once

#include <algorithm>           // std::find, std::min
#include <atomic>              // std::atomic
#include <chrono>              // std::chrono::steady_clock, std::chrono::milliseconds
#include <condition_variable>  // std::condition_variable
#include <cstddef>             // std::size_t
#include <exception>           // std::exception_ptr
#include <mutex>               // std::mutex, std::unique_lock
#include <memory>              // std::addressof
#include <thread>              // std::thread
#include <type_traits>         // std::remove_reference_t
#include <vector>              // std::vector

#if defined(__linux__)
#include <pthread.h>  // pthread_getaffinity_np, pthread_setaffinity_np, pthread_self
#include <sched.h>    // sched_getcpu, cpu_set_t, CPU_*
#endif

namespace srs::core {

/// The opt-in worker pool's behaviour (use_worker_pool()).
struct WorkerPoolOptions {
  /// Start each new worker on another core than its creator's (Linux; its
  /// affinity excludes the creator's core until it runs, then is restored).
  bool placement = true;
  /// How long a worker that has finished its tasks keeps looking for new ones
  /// (yielding its core between looks) before it sleeps.
  std::chrono::milliseconds spin{5};
};

namespace detail {

/// The process-wide choice between plain threads (default) and the pool.
struct ParallelSettings {
  std::atomic<bool> pool{false};
  std::atomic<bool> placement{true};
  std::atomic<long long> spin_us{5000};
  static ParallelSettings& get() {
    static ParallelSettings s;
    return s;
  }
};

/// A new worker's placement (Linux): Linux tends to start a new thread, and
/// to wake a sleeping one, on the core of the thread that creates or wakes it,
/// where it can wait behind that thread for 10 ms or more before the load
/// balancer moves it (measured with `perf sched` on a 2-core VM,
/// docs/performance.md). So the creator first bars the new worker from its own core
/// (the kernel then starts it on another one), and the worker, once running,
/// restores its mask and stays where it is; see also WorkerPool::spin(). Best
/// effort: nothing happens where the mask cannot be read or set, or has one CPU.
struct Placement {
#if defined(__linux__)
  bool moved = false;
  cpu_set_t all;
  /// Creator side, right after starting `t`.
  void move_away(std::thread& t) {
    if (!ParallelSettings::get().placement.load()) return;
    const int cpu = sched_getcpu();
    if (cpu < 0 || pthread_getaffinity_np(t.native_handle(), sizeof all, &all) != 0) return;
    if (!CPU_ISSET(cpu, &all) || CPU_COUNT(&all) < 2) return;
    cpu_set_t others = all;
    CPU_CLR(cpu, &others);
    moved = pthread_setaffinity_np(t.native_handle(), sizeof others, &others) == 0;
  }
  /// Worker side, after move_away (the pool's mutex orders the two).
  void settle() const {
    if (moved) pthread_setaffinity_np(pthread_self(), sizeof all, &all);
  }
#else
  void move_away(std::thread&) {}
  void settle() const {}
#endif
};

/// One parallel_for call: its tasks, its helpers and its first error.
struct ParallelJob {
  std::size_t n = 0;
  std::atomic<std::size_t> next{0};  // the next task to hand out
  unsigned max_helpers = 0;
  unsigned joined = 0;  // helpers that took part (guarded by the pool's mutex)
  unsigned active = 0;  // helpers running its tasks now (guarded by the pool's mutex)
  void (*run)(void* body, std::size_t task, unsigned slot) = nullptr;
  void* body = nullptr;
  std::mutex error_mutex;
  std::exception_ptr error;
  std::size_t error_task = 0;

  /// Runs tasks until none is left (or one has thrown).
  void work(unsigned slot) {
    for (std::size_t t = next++; t < n; t = next++) {
      try {
        run(body, t, slot);
      } catch (...) {
        next = n;  // no further tasks
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error || t < error_task) {
          error = std::current_exception();
          error_task = t;
        }
      }
    }
  }
  bool wants_helper() const { return joined < max_helpers && next.load() < n; }
};

/// The process-wide pool behind parallel_for once use_worker_pool() was called.
class WorkerPool {
 public:
  /// How long a worker that has finished its tasks keeps looking for new ones
  /// before it sleeps (WorkerPoolOptions::spin): a sleeping worker is woken on
  /// its waker's core (see Placement), a looking one is already running
  /// elsewhere. srs's parallel sections follow each other within a few
  /// milliseconds (a user's folds, then ICI's LOWESS).
  static std::chrono::microseconds spin() { return std::chrono::microseconds(ParallelSettings::get().spin_us.load()); }

  /// True once the pool exists (its first use), for tests.
  static std::atomic<bool>& created() {
    static std::atomic<bool> c{false};
    return c;
  }

  static WorkerPool& shared() {
    created() = true;
    static WorkerPool pool;
    return pool;
  }
  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    ++posted_;
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  /// Runs `job` on the calling thread (slot 0) and on free workers.
  void run(ParallelJob& job) {
    if (job.max_helpers > 0) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        while (workers_.size() < job.max_helpers) {
          placements_.emplace_back();
          const std::size_t k = workers_.size();
          workers_.emplace_back([this, k] { serve(k); });
          placements_.back().move_away(workers_.back());
        }
        jobs_.push_back(&job);
      }
      ++posted_;
      wake_.notify_all();
    }
    job.work(0);
    if (job.max_helpers > 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));  // no helper joins from now on
      done_.wait(lock, [&] { return job.active == 0; });
    }
  }

  /// Workers started so far.
  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return workers_.size();
  }

 private:
  ParallelJob* find_job() {  // mutex_ held
    for (ParallelJob* j : jobs_)
      if (j->wants_helper()) return j;
    return nullptr;
  }
  void serve(std::size_t k) {
    std::unique_lock<std::mutex> lock(mutex_);
    placements_[k].settle();
    for (;;) {
      ParallelJob* job = find_job();
      if (!job && !stop_) {
        // Look for new tasks for a while (spin), then sleep until woken.
        const unsigned long seen = posted_.load();
        lock.unlock();
        const auto until = std::chrono::steady_clock::now() + spin();
        while (posted_.load() == seen && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        lock.lock();
        wake_.wait(lock, [&] { return stop_ || (job = find_job()) != nullptr; });
      }
      if (!job) return;  // stop_
      const unsigned slot = ++job->joined;
      ++job->active;
      lock.unlock();
      job->work(slot);
      lock.lock();
      if (--job->active == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;  // workers: a job wants helpers, or stop
  std::condition_variable done_;  // callers: a job's helpers are done
  std::vector<ParallelJob*> jobs_;
  std::vector<std::thread> workers_;
  std::vector<Placement> placements_;     // placements_[k]: workers_[k]'s
  std::atomic<unsigned long> posted_{0};  // jobs posted so far (what a looking worker watches)
  bool stop_ = false;
};

/// Runs `job` on the calling thread (slot 0) and on helper threads started for it, then joined.
inline void run_with_plain_threads(ParallelJob& job) {
  std::vector<std::thread> helpers;
  helpers.reserve(job.max_helpers);
  try {
    for (unsigned k = 1; k <= job.max_helpers; ++k) helpers.emplace_back([&job, k] { job.work(k); });
  } catch (...) {
    // No more threads to be had (std::system_error): the caller and the helpers started do the work.
  }
  job.work(0);
  for (std::thread& t : helpers) t.join();
}

}  // namespace detail

/// Makes parallel_for use a process-wide pool of parked workers, placed on
/// other cores and spinning briefly between bursts (see the file comment).
/// For programs that own the machine, such as srs-bench; an application
/// embedding the library keeps the default (plain threads per call).
inline void use_worker_pool(const WorkerPoolOptions& options = {}) {
  detail::ParallelSettings& s = detail::ParallelSettings::get();
  s.placement = options.placement;
  s.spin_us = std::chrono::duration_cast<std::chrono::microseconds>(options.spin).count();
  s.pool = true;
}

/// Back to the default: helper threads started and joined per call (a pool
/// already started stays parked, unused).
inline void use_plain_threads() { detail::ParallelSettings::get().pool = false; }

/// True if parallel_for uses the worker pool (use_worker_pool()).
inline bool using_worker_pool() { return detail::ParallelSettings::get().pool.load(); }

/// Runs body(task, slot) for task = 0..n-1 on the calling thread and up to
/// `threads - 1` helpers — plain threads for this call, or pooled workers after
/// use_worker_pool() (see the file comment); returns when all are done.
/// threads <= 1 or n <= 1: every task on the calling thread, in order.
template <class Body>
void parallel_for(std::size_t n, unsigned threads, Body&& body) {
  if (n == 0) return;
  detail::ParallelJob job;
  job.n = n;
  job.max_helpers = threads > 1 && n > 1 ? static_cast<unsigned>(std::min<std::size_t>(threads - 1, n - 1)) : 0u;
  using B = std::remove_reference_t<Body>;
  job.body = const_cast<void*>(static_cast<const void*>(std::addressof(body)));
  job.run = [](void* b, std::size_t task, unsigned slot) { (*static_cast<B*>(b))(task, slot); };
  if (job.max_helpers == 0) {
    job.work(0);
  } else if (using_worker_pool()) {
    detail::WorkerPool::shared().run(job);
  } else {
    detail::run_with_plain_threads(job);
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace srs::core
