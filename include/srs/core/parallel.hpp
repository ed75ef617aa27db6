// SPDX-License-Identifier: MIT
/// @file srs/core/parallel.hpp
/// `parallel_for`: the tasks 0..n-1 run on the calling thread and on up to
/// `threads - 1` helpers from one process-wide pool of parked worker threads.
///
/// Why a pool: on Linux a new thread often starts on its parent's core and
/// waits there for the load balancer (measured on the 2-core machine of README
/// "Performance": in half of the spawns, a thread given 2 ms of work did not
/// start before its parent's 2 ms were done); a parked worker woken by a
/// condition variable starts on an idle core within about 0.1 ms. srs's
/// parallel sections are short (the folds of one user, LOWESS fits), so the
/// evaluator and ICI share their work through this pool instead of spawning.
///
/// Rules:
///   * the caller always runs tasks itself, and waits only for the tasks
///     helpers have taken, so a call never waits for a free worker: with every
///     worker busy (another user's folds, a nested call) it simply runs alone;
///   * tasks are handed out in index order (an atomic counter); which thread
///     runs a task is not specified, so a task must not depend on it (results
///     written per task are the same with any number of threads);
///   * `body(task, slot)`: slot 0 is the caller, helpers get 1..threads-1 (for
///     per-thread scratch);
///   * a task that throws stops the hand-out of further tasks; once the tasks
///     already taken are done, the exception of the lowest-numbered throwing
///     task is rethrown to the caller;
///   * the pool grows to the largest `threads - 1` asked for (start_workers
///     starts them ahead); its workers sleep on a condition variable between
///     calls and are joined at exit.
#pragma once

#include <algorithm>           // std::find, std::min
#include <atomic>              // std::atomic
#include <condition_variable>  // std::condition_variable
#include <cstddef>             // std::size_t
#include <exception>           // std::exception_ptr
#include <mutex>               // std::mutex, std::unique_lock
#include <memory>              // std::addressof
#include <thread>              // std::thread
#include <type_traits>         // std::remove_reference_t
#include <vector>              // std::vector

namespace srs::core {

namespace detail {

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

/// The process-wide pool behind parallel_for.
class WorkerPool {
 public:
  static WorkerPool& shared() {
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
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  /// Starts workers until there are at least `n`.
  void reserve(std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    grow(n);
  }

  /// Runs `job` on the calling thread (slot 0) and on free workers.
  void run(ParallelJob& job) {
    if (job.max_helpers > 0) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        grow(job.max_helpers);
        jobs_.push_back(&job);
      }
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
  void grow(std::size_t n) {  // mutex_ held
    while (workers_.size() < n) workers_.emplace_back([this] { serve(); });
  }
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ParallelJob* job = nullptr;
      wake_.wait(lock, [&] {
        if (stop_) return true;
        for (ParallelJob* j : jobs_)
          if (j->wants_helper()) {
            job = j;
            return true;
          }
        return false;
      });
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
  bool stop_ = false;
};

}  // namespace detail

/// Starts the pool's workers for up to `threads` threads now (threads - 1
/// helpers), so that the first parallel_for does not pay for creating them: a
/// new thread may wait on its parent's core for a few milliseconds, a parked
/// one wakes on an idle core. Optional (parallel_for starts what it lacks);
/// srs-bench calls it before reading the data.
inline void start_workers(unsigned threads) {
  if (threads > 1) detail::WorkerPool::shared().reserve(threads - 1);
}

/// Runs body(task, slot) for task = 0..n-1 on the calling thread and up to
/// `threads - 1` pooled helpers (see the file comment); returns when all are
/// done. threads <= 1 or n <= 1: every task on the calling thread, in order.
template <class Body>
void parallel_for(std::size_t n, unsigned threads, Body&& body) {
  if (n == 0) return;
  detail::ParallelJob job;
  job.n = n;
  job.max_helpers = threads > 1 && n > 1 ? static_cast<unsigned>(std::min<std::size_t>(threads - 1, n - 1)) : 0u;
  using B = std::remove_reference_t<Body>;
  job.body = const_cast<void*>(static_cast<const void*>(std::addressof(body)));
  job.run = [](void* b, std::size_t task, unsigned slot) { (*static_cast<B*>(b))(task, slot); };
  detail::WorkerPool::shared().run(job);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace srs::core
