// SPDX-License-Identifier: MIT
/// @file srs/eval/metrics.hpp
/// The per-user metrics of the reference benchmark (docs/protocol.md §4), as
/// streaming accumulators over the pooled test predictions of a user. Each one
/// satisfies srs::Metric: default-constructible, `add(prediction)`, `value()`
/// (empty when undefined or when nothing was added), `name` as in the
/// reference's result JSON, plus `merge(other)` to combine partial results.
///
///   LogLoss     LL = -(1/n) sum[ y ln(clip(p)) + (1-y) ln(clip(1-p)) ],
///               clip(x) = min(max(x, eps), 1 - eps), eps = 2^-52 = 2.220446049250313e-16,
///               1-p formed first and then clipped, no renormalization (scikit-learn >= 1.5)
///   AUC         U / (n0 n1), U = sum over (positive, negative) pairs of
///               [p_pos > p_neg] + 1/2 [p_pos == p_neg]   (Mann-Whitney; = trapezoidal ROC area)
///   RMSE        sqrt( (1/n) sum (p - y)^2 )
///   MBE         (1/n) sum (p - y)
///   RMSE(bins)  sqrt( sum_b n_b (ybar_b - pbar_b)^2 / sum_b n_b ), rows grouped by the key
///               triple (b_t, b_i, b_l):
///                 b_t = rnd_2( 2.48 * 3.62^floor( ln(max(elapsed_days, 1e-6)) / ln 3.62 ) )
///                 b_i = rnd_0( 1.99 * 1.89^floor( ln(i) / ln 1.89 ) )
///                 b_l = 0 if L = 0, else rnd_0( 1.65 * 1.73^floor( ln(L) / ln 1.73 ) )
///               rnd_d(x) = rint(x 10^d) / 10^d (NumPy's round, half to even)
///   precision@90  TP / (TP + FP), 0 when TP + FP = 0      the classifier "p >= 0.9" (compared
///   recall@90     TP / (TP + FN), 0 when TP + FN = 0      in double) against y = 1 as the positive
///               class: scikit-learn's precision_score / recall_score with zero_division = 0
///
/// The keys (data::bin_key, srs/data/bins.hpp) are computed with the formulas,
/// in the reference's order of operations, never from a table; the table of
/// docs/protocol.md §4 is the test oracle (tests/data/bins.test.cpp). RMSE(bins) has no row weights: the
/// reference's optional `weights` column is absent from test rows.
///
/// Accuracy: every sum is a Neumaier-compensated sum (error O(eps) rather than
/// O(n eps)), AUC counts its U statistic in exact integers, and RMSE(bins) counts
/// each bin's recalls exactly. On the golden samples the values agree with
/// scikit-learn / NumPy / pandas to within 1e-14 relative (the largest gap is
/// NumPy's own rounding in a near-cancelling MBE sum), far below the 1e-6 of the
/// reference's rounding to 6 decimals; this holds for any realistic n (counts
/// are 64-bit; AUC's 2U needs n0 n1 < 2^63).
///
/// precision@90 and recall@90 count exactly. A prediction computed in float32
/// that prints as 0.9 is float32(0.9) = 0.89999998 < 0.9, so it is not a
/// positive, as in the reference, whose p are float32 widened to double.
///
/// Preconditions: p is not NaN; y is 0 or 1 (any non-zero y counts as 1).
#pragma once

#include <algorithm>    // std::sort, std::fill
#include <array>        // std::array
#include <bit>          // std::bit_cast
#include <cmath>        // std::abs, std::log, std::sqrt, std::isnan
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <optional>     // std::optional, std::nullopt
#include <string_view>  // std::string_view
#include <tuple>        // std::tuple, std::get, std::apply
#include <utility>      // std::pair, std::index_sequence, std::exchange
#include <vector>       // std::vector

#include <srs/concepts.hpp>   // srs::Metric, srs::Prediction
#include <srs/data/bins.hpp>  // data::BinKey, data::bin_key, interval_bin, review_bin, lapse_bin

namespace srs::eval {

namespace detail {

/// Neumaier's compensated summation: the running sum plus a correction term
/// holding the low-order bits lost by each addition.
struct CompensatedSum {
  double sum = 0;
  double comp = 0;

  void add(double x) noexcept {
    const double t = sum + x;
    if (std::abs(sum) >= std::abs(x)) {
      comp += (sum - t) + x;
    } else {
      comp += (x - t) + sum;
    }
    sum = t;
  }
  void merge(const CompensatedSum& o) noexcept {
    add(o.sum);
    add(o.comp);
  }
  double value() const noexcept { return sum + comp; }
};

/// A metric that can absorb another's partial result.
template <class M>
concept Mergeable = requires(M& a, const M& b) {
  a.merge(b);
};

}  // namespace detail

// ---------------------------------------------------------------------------
// RMSE(bins) keys (srs/data/bins.hpp)
// ---------------------------------------------------------------------------

/// The RMSE(bins) key triple of a prediction's row.
inline data::BinKey bin_key(const Prediction& r) { return data::bin_key(r.elapsed_days, r.i, r.lapses); }

// ---------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------

namespace detail {
/// The shared body of metrics that are a function of the mean of a per-row
/// term: Derived::term(p, y) is summed (compensated), Derived::finish(mean)
/// gives the value (identity by default).
template <class Derived>
class MeanOfTerms {
 public:
  void add(const Prediction& r) { add(r.p, r.y); }
  /// Adds one (probability, label) pair.
  void add(double p, int y) {
    sum_.add(Derived::term(p, y != 0 ? 1 : 0));
    ++n_;
  }
  void merge(const Derived& o) {
    sum_.merge(o.sum_);
    n_ += o.n_;
  }
  std::size_t count() const noexcept { return n_; }
  /// The metric; empty if nothing was added.
  std::optional<double> value() const {
    if (n_ == 0) return std::nullopt;
    return Derived::finish(sum_.value() / static_cast<double>(n_));
  }
  static double finish(double mean) { return mean; }

 private:
  CompensatedSum sum_;
  std::size_t n_ = 0;
};
}  // namespace detail

/// Log loss (binary cross-entropy) with scikit-learn >= 1.5 clipping:
/// -(1/n) sum [y ln(clip(p)) + (1-y) ln(clip(1-p))], clip to [eps, 1-eps].
struct LogLoss : detail::MeanOfTerms<LogLoss> {
  static constexpr std::string_view name = "LogLoss";
  /// The clipping bound, float64 machine epsilon 2^-52.
  static constexpr double eps = std::numeric_limits<double>::epsilon();

  /// Only the term of the observed class is non-zero (y and 1-y are 0/1);
  /// 1-p is formed first, then clipped.
  static double term(double p, int y) {
    const double q = y ? p : 1.0 - p;
    const double c = q < eps ? eps : (q > 1.0 - eps ? 1.0 - eps : q);
    return -std::log(c);
  }
};

/// Area under the ROC curve: the Mann-Whitney U statistic over n0 n1, tied
/// scores counting 1/2. Keeps every (p, y) pair; value() sorts a copy, O(n log n).
struct Auc {
  static constexpr std::string_view name = "AUC";

  void add(const Prediction& r) { add(r.p, r.y); }
  /// Adds one (probability, label) pair.
  void add(double p, int y) {
    scores_.push_back({p, y != 0});
    if (y != 0) ++n1_;
  }
  void merge(const Auc& o) {
    scores_.insert(scores_.end(), o.scores_.begin(), o.scores_.end());
    n1_ += o.n1_;
  }
  std::size_t count() const noexcept { return scores_.size(); }
  /// The AUC; empty if nothing was added or only one class is present.
  std::optional<double> value() const {
    const std::uint64_t n1 = n1_;
    const std::uint64_t n0 = scores_.size() - n1_;
    if (n0 == 0 || n1 == 0) return std::nullopt;
    std::vector<Scored> s = sorted_scores();
    // Walk groups of equal scores upwards. Each positive beats every negative
    // below its group and ties with each negative in it: 2U += c1 (2 below + c0).
    std::uint64_t twice_u = 0;
    std::uint64_t neg_below = 0;
    for (std::size_t a = 0; a < s.size();) {
      std::size_t b = a;
      std::uint64_t c0 = 0, c1 = 0;
      for (; b < s.size() && s[b].p == s[a].p; ++b) (s[b].y ? c1 : c0) += 1;
      twice_u += c1 * (2 * neg_below + c0);
      neg_below += c0;
      a = b;
    }
    return static_cast<double>(twice_u) / (2.0 * static_cast<double>(n0) * static_cast<double>(n1));
  }

 private:
  struct Scored {
    double p;
    bool y;
  };
  /// The scores in ascending order of p (equal scores in any order: U counts
  /// them alike). Small inputs: std::sort; larger: an LSD radix sort on p's
  /// bits mapped to an unsigned key of the same order (-0 just below +0, and
  /// the two are one group in value()'s walk).
  std::vector<Scored> sorted_scores() const {
    std::vector<Scored> s = scores_;
    if (s.size() < 512) {
      std::sort(s.begin(), s.end(), [](const Scored& a, const Scored& b) { return a.p < b.p; });
      return s;
    }
    constexpr unsigned bits = 11;
    constexpr std::size_t buckets = std::size_t{1} << bits;
    const auto key = [](double p) {
      const auto u = std::bit_cast<std::uint64_t>(p);
      return (u >> 63) != 0 ? ~u : u | (std::uint64_t{1} << 63);
    };
    std::vector<std::uint64_t> keys(s.size()), keys2(s.size());
    for (std::size_t k = 0; k < s.size(); ++k) keys[k] = key(s[k].p);
    std::vector<Scored> out(s.size());
    std::vector<std::size_t> count(buckets);
    for (unsigned shift = 0; shift < 64; shift += bits) {
      std::fill(count.begin(), count.end(), 0);
      for (std::uint64_t k : keys) ++count[(k >> shift) & (buckets - 1)];
      if (count[(keys[0] >> shift) & (buckets - 1)] == s.size()) continue;  // one digit value: order unchanged
      std::size_t sum = 0;
      for (std::size_t& c : count) sum += std::exchange(c, sum);
      for (std::size_t k = 0; k < s.size(); ++k) {
        const std::size_t at = count[(keys[k] >> shift) & (buckets - 1)]++;
        out[at] = s[k];
        keys2[at] = keys[k];
      }
      s.swap(out);
      keys.swap(keys2);
    }
    return s;
  }
  std::vector<Scored> scores_;
  std::size_t n1_ = 0;
};

/// Root mean squared error of p against y: sqrt((1/n) sum (p - y)^2).
struct Rmse : detail::MeanOfTerms<Rmse> {
  static constexpr std::string_view name = "RMSE";
  static double term(double p, int y) {
    const double e = p - static_cast<double>(y);
    return e * e;
  }
  static double finish(double mean) { return std::sqrt(mean); }
};

/// Mean bias error: (1/n) sum (p - y); positive = over-confident in recall.
struct Mbe : detail::MeanOfTerms<Mbe> {
  static constexpr std::string_view name = "MBE";
  static double term(double p, int y) { return p - static_cast<double>(y); }
};

/// RMSE(bins): rows grouped by bin_key(elapsed_days, i, lapses); the
/// count-weighted RMS gap between each bin's mean recall and mean prediction,
/// sqrt(sum_b n_b (ybar_b - pbar_b)^2 / sum_b n_b). Rows whose key is NaN
/// (negative i or lapses) are skipped, as the reference's groupby does.
struct RmseBins {
  static constexpr std::string_view name = "RMSE(bins)";

  void add(const Prediction& r) { add(memo_.key(r), r.p, r.y); }
  /// Adds one row with a precomputed key.
  void add(const data::BinKey& key, double p, int y) {
    if (key.has_nan()) return;
    Cell& c = bins_[key];
    ++c.n;
    if (y != 0) ++c.positives;
    c.sum_p.add(p);
  }
  void merge(const RmseBins& o) {
    for (const auto& [key, oc] : o.bins_) {
      Cell& c = bins_[key];
      c.n += oc.n;
      c.positives += oc.positives;
      c.sum_p.merge(oc.sum_p);
    }
  }
  /// Number of distinct (b_t, b_i, b_l) bins seen.
  std::size_t num_bins() const noexcept { return bins_.size(); }
  /// RMSE(bins); empty if nothing was added.
  std::optional<double> value() const {
    if (bins_.empty()) return std::nullopt;
    detail::CompensatedSum num;
    std::size_t den = 0;
    for (const auto& [key, c] : bins_) {
      const double n = static_cast<double>(c.n);
      const double gap = static_cast<double>(c.positives) / n - c.sum_p.value() / n;
      num.add(n * gap * gap);
      den += c.n;
    }
    return std::sqrt(num.value() / static_cast<double>(den));
  }

 private:
  struct Cell {
    std::size_t n = 0;          // rows in the bin
    std::size_t positives = 0;  // rows with y = 1
    detail::CompensatedSum sum_p;
  };
  std::map<data::BinKey, Cell> bins_;
  /// bin_key's three bins of values in [0, 4096), each computed once per
  /// metric (the same values; a bin is two logarithms and two powers).
  struct Memo {
    static constexpr std::int32_t size = 4096;
    std::vector<double> t, i, l;
    template <class F>
    static double get(std::vector<double>& table, std::int32_t x, F bin) {
      if (x < 0 || x >= size) return bin(x);
      if (table.empty()) table.assign(size, std::numeric_limits<double>::quiet_NaN());
      double& v = table[static_cast<std::size_t>(x)];
      if (std::isnan(v)) v = bin(x);  // (no bin of a value >= 0 is NaN)
      return v;
    }
    data::BinKey key(const Prediction& r) {
      return {get(t, r.elapsed_days, [](std::int32_t x) { return data::interval_bin(x); }),
              get(i, r.i, [](std::int32_t x) { return data::review_bin(x); }),
              get(l, r.lapses, [](std::int32_t x) { return data::lapse_bin(x); })};
    }
  } memo_;
};

namespace detail {
/// The confusion counts of the classifier "p >= threshold" against y = 1, the
/// shared body of PrecisionAt90 and RecallAt90 (Derived::finish(counts) gives
/// the value).
template <class Derived>
class ThresholdCounts {
 public:
  /// A prediction p >= threshold is a predicted recall.
  static constexpr double threshold = 0.9;

  void add(const Prediction& r) { add(r.p, r.y); }
  /// Adds one (probability, label) pair.
  void add(double p, int y) {
    const bool predicted = p >= threshold;
    if (y != 0) {
      (predicted ? true_positives_ : false_negatives_) += 1;
    } else if (predicted) {
      ++false_positives_;
    }
    ++n_;
  }
  void merge(const Derived& o) {
    true_positives_ += o.true_positives_;
    false_positives_ += o.false_positives_;
    false_negatives_ += o.false_negatives_;
    n_ += o.n_;
  }
  std::size_t count() const noexcept { return n_; }
  std::size_t true_positives() const noexcept { return true_positives_; }
  std::size_t false_positives() const noexcept { return false_positives_; }
  std::size_t false_negatives() const noexcept { return false_negatives_; }
  /// The metric; empty if nothing was added.
  std::optional<double> value() const {
    if (n_ == 0) return std::nullopt;
    return static_cast<const Derived&>(*this).finish();
  }

 protected:
  /// a / (a + b), or 0 when a + b = 0 (scikit-learn's zero_division = 0).
  static double ratio(std::size_t a, std::size_t b) {
    return a + b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(a + b);
  }

 private:
  std::size_t true_positives_ = 0;   // p >= 0.9, y = 1
  std::size_t false_positives_ = 0;  // p >= 0.9, y = 0
  std::size_t false_negatives_ = 0;  // p < 0.9, y = 1
  std::size_t n_ = 0;
};
}  // namespace detail

/// precision@90: of the predictions p >= 0.9, the share recalled (y = 1);
/// 0 when no prediction reaches 0.9.
struct PrecisionAt90 : detail::ThresholdCounts<PrecisionAt90> {
  static constexpr std::string_view name = "precision@90";
  double finish() const { return ratio(true_positives(), false_positives()); }
};

/// recall@90: of the recalled reviews (y = 1), the share predicted p >= 0.9;
/// 0 when nothing was recalled.
struct RecallAt90 : detail::ThresholdCounts<RecallAt90> {
  static constexpr std::string_view name = "recall@90";
  double finish() const { return ratio(true_positives(), false_negatives()); }
};

static_assert(Metric<LogLoss>);
static_assert(Metric<Auc>);
static_assert(Metric<Rmse>);
static_assert(Metric<Mbe>);
static_assert(Metric<RmseBins>);
static_assert(Metric<PrecisionAt90>);
static_assert(Metric<RecallAt90>);

// ---------------------------------------------------------------------------
// Several metrics at once
// ---------------------------------------------------------------------------

/// Several metrics fed from one stream of predictions:
///
///     MetricSet<LogLoss, RmseBins, Auc> m;
///     for (const Prediction& r : pooled) m.add(r);
///     for (auto [name, value] : m.values()) ...   // ("LogLoss", ...), ("RMSE(bins)", ...), ("AUC", ...)
template <Metric... Ms>
struct MetricSet {
  std::tuple<Ms...> metrics{};

  /// The metric names, in order.
  static constexpr std::array<std::string_view, sizeof...(Ms)> names{Ms::name...};

  /// Feeds one prediction to every metric.
  void add(const Prediction& r) {
    std::apply([&](auto&... m) { (m.add(r), ...); }, metrics);
  }
  /// Merges another set's partial results (needs every metric to have merge()).
  void merge(const MetricSet& o) requires(detail::Mergeable<Ms>&&...) {
    merge_impl(o, std::index_sequence_for<Ms...>{});
  }
  /// (name, value) of every metric, in order.
  std::array<std::pair<std::string_view, std::optional<double>>, sizeof...(Ms)> values() const {
    return std::apply(
        [](const auto&... m) {
          return std::array<std::pair<std::string_view, std::optional<double>>, sizeof...(Ms)>{
              std::pair<std::string_view, std::optional<double>>{m.name, m.value()}...};
        },
        metrics);
  }
  /// One metric by type.
  template <class M>
  const M& get() const {
    return std::get<M>(metrics);
  }

 private:
  template <std::size_t... K>
  void merge_impl(const MetricSet& o, std::index_sequence<K...>) {
    (std::get<K>(metrics).merge(std::get<K>(o.metrics)), ...);
  }
};

/// One metric over a range of predictions.
template <Metric M, class Range>
std::optional<double> compute(const Range& predictions) {
  M m;
  for (const Prediction& r : predictions) m.add(r);
  return m.value();
}

}  // namespace srs::eval
