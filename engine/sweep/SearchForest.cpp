// parameterImportance (SearchModels.h): a random forest's importance and correlation.
#include "engine/sweep/SearchModels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

#include "engine/sweep/SearchDetail.h"

namespace tbench::search {
using namespace detail;
namespace {

// ---------------------------------------------------------------------------------------------
// Random forest importance

struct ForestData {
  std::vector<Dimension> dims;
  std::vector<Point> x;
  std::vector<double> y;  ///< standardized
  size_t minLeaf = 2;     ///< 1 below 6 observations, so that 3 can still split
};

struct Split {
  double gain = 0;
  size_t feature = 0;
  std::vector<size_t> left, right;
};

/// The ordering key of each sample of the node for `feature`: the coordinate, or for a
/// categorical dimension the mean y of its category in the node (then the category).
std::vector<std::pair<double, double>> splitKeys(const ForestData& f,
                                                 const std::vector<size_t>& idx, size_t feature) {
  std::vector<std::pair<double, double>> keys(idx.size());
  const int choices = f.dims[feature].choices;
  if (choices <= 0) {
    for (size_t i = 0; i < idx.size(); ++i) keys[i] = {f.x[idx[i]][feature], 0.0};
    return keys;
  }
  std::vector<double> sum(choices, 0.0), count(choices, 0.0);
  for (size_t i : idx) {
    const int c = cellOf(f.x[i][feature], choices);
    sum[c] += f.y[i], count[c] += 1;
  }
  for (size_t i = 0; i < idx.size(); ++i) {
    const int c = cellOf(f.x[idx[i]][feature], choices);
    keys[i] = {sum[c] / count[c], static_cast<double>(c)};
  }
  return keys;
}

/// The best split of the node on one feature (variance reduction x samples); gain 0 when none.
Split bestSplitOn(const ForestData& f, const std::vector<size_t>& idx, size_t feature) {
  const std::vector<std::pair<double, double>> keys = splitKeys(f, idx, feature);
  std::vector<size_t> order(idx.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return keys[a] != keys[b] ? keys[a] < keys[b] : idx[a] != idx[b] ? idx[a] < idx[b] : a < b;
  });
  const size_t n = idx.size();
  double total = 0, totalSq = 0;
  for (size_t i : idx) total += f.y[i], totalSq += f.y[i] * f.y[i];
  const double sse = totalSq - total * total / static_cast<double>(n);
  Split best;
  double sum = 0, sumSq = 0;
  size_t cut = 0;
  for (size_t i = 1; i < n; ++i) {
    const double y = f.y[idx[order[i - 1]]];
    sum += y, sumSq += y * y;
    if (i < f.minLeaf || n - i < f.minLeaf || keys[order[i - 1]] == keys[order[i]]) continue;
    const double ni = static_cast<double>(i), nr = static_cast<double>(n - i);
    const double gain =
        sse - (sumSq - sum * sum / ni) - ((totalSq - sumSq) - (total - sum) * (total - sum) / nr);
    if (gain > best.gain) best.gain = gain, cut = i;
  }
  if (cut == 0) return best;
  best.feature = feature;
  for (size_t i = 0; i < n; ++i) (i < cut ? best.left : best.right).push_back(idx[order[i]]);
  return best;
}

/// Grows a tree on the samples `idx` (with repeats), adding each split's gain to `importance`.
void growTree(const ForestData& f, const std::vector<size_t>& idx, std::vector<double>& importance,
              int depth) {
  if (idx.size() < 2 * f.minLeaf || depth > 64) return;
  Split best;
  for (size_t j = 0; j < f.dims.size(); ++j) {
    Split s = bestSplitOn(f, idx, j);
    if (s.gain > best.gain) best = std::move(s);
  }
  if (!(best.gain > 1e-12)) return;
  importance[best.feature] += best.gain;
  growTree(f, best.left, importance, depth + 1);
  growTree(f, best.right, importance, depth + 1);
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma),
        sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (!(saa > 1e-300) || !(sbb > 1e-300)) return 0;
  return std::clamp(sab / std::sqrt(saa * sbb), -1.0, 1.0);
}

/// Pearson's correlation of y with dimension j; for a categorical one, the category one-hot
/// that correlates most in absolute value.
double correlationOf(const ForestData& f, size_t j) {
  const int choices = f.dims[j].choices;
  std::vector<double> column(f.x.size());
  if (choices <= 0) {
    for (size_t i = 0; i < f.x.size(); ++i) column[i] = f.x[i][j];
    return pearson(column, f.y);
  }
  double best = 0;
  for (int c = 0; c < choices; ++c) {
    for (size_t i = 0; i < f.x.size(); ++i) column[i] = cellOf(f.x[i][j], choices) == c ? 1.0 : 0.0;
    const double r = pearson(column, f.y);
    if (std::abs(r) > std::abs(best)) best = r;
  }
  return best;
}

}  // namespace

Importance parameterImportance(const std::vector<Dimension>& dims,
                               const std::vector<Observation>& obs, uint64_t seed) {
  Importance result{std::vector<double>(dims.size(), 0.0), std::vector<double>(dims.size(), 0.0)};
  const std::vector<Observation> data = usable(dims, obs);
  if (data.size() < 3 || dims.empty()) return result;
  ForestData f{dims, {}, {}, data.size() < 6 ? size_t{1} : size_t{2}};
  for (const Observation& o : data) f.x.push_back(o.x), f.y.push_back(o.y);
  GpData scaled = standardized(dims, data);  // the same standardization
  f.y = scaled.y;
  if (std::all_of(f.y.begin(), f.y.end(), [&](double v) { return v == f.y.front(); }))
    return result;
  std::mt19937_64 rng(seed);
  const size_t n = data.size();
  for (int tree = 0; tree < 100; ++tree) {
    std::vector<size_t> sample(n);
    for (size_t& i : sample) i = uniformIndex(rng, n);
    std::vector<double> treeImportance(dims.size(), 0.0);
    growTree(f, sample, treeImportance, 0);
    const double total = std::accumulate(treeImportance.begin(), treeImportance.end(), 0.0);
    if (!(total > 0)) continue;
    for (size_t j = 0; j < dims.size(); ++j) result.importance[j] += treeImportance[j] / total;
  }
  const double total = std::accumulate(result.importance.begin(), result.importance.end(), 0.0);
  for (double& v : result.importance) v = total > 0 ? v / total : 0.0;
  for (size_t j = 0; j < dims.size(); ++j) result.correlation[j] = correlationOf(f, j);
  return result;
}

}  // namespace tbench::search
