#pragma once
// What the search models share (SearchModels.cpp): random numbers from the generator's raw bits,
// coordinates and cells, the normal distribution, and the standardized data the Gaussian process
// and the forest fit. Internal to engine/sweep's SearchModels*.cpp, not an interface.

#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "engine/sweep/SearchModels.h"

namespace tbench::search::detail {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
using Point = std::vector<double>;
using Matrix = std::vector<double>;  ///< row-major, square

/// Uniform in [0, 1) from the generator's raw output (53 bits), the same on every platform.
double unit(std::mt19937_64& rng);
double standardNormal(std::mt19937_64& rng);
size_t uniformIndex(std::mt19937_64& rng, size_t n);
size_t drawWeighted(std::mt19937_64& rng, const std::vector<double>& weights);
int cellsOf(const Dimension& dim);
int cellOf(double x, int cells);
double cellCentre(int cell, int cells);
Point randomPoint(const std::vector<Dimension>& dims, std::mt19937_64& rng);
bool finitePoint(const Point& x);
/// The observations that fit `dims` (right size, finite), their coordinates snapped.
std::vector<Observation> usable(const std::vector<Dimension>& dims,
                                const std::vector<Observation>& done);
std::vector<Point> usablePoints(const std::vector<Dimension>& dims,
                                const std::vector<Point>& points);
/// Indices of `obs` ordered by y, ties by index (a total order: the same on every platform).
std::vector<size_t> orderByY(const std::vector<Observation>& obs);
double normalCdf(double z);
double normalLogPdf(double z);
/// Phi(b) - Phi(a) for a <= b, computed in the tail where it does not cancel.
double normalMass(double a, double b);
double logSumExp(const std::vector<double>& v);
double truncatedNormal(std::mt19937_64& rng, double mu, double sigma);

struct GpData {
  std::vector<Dimension> dims;
  std::vector<Point> x;
  std::vector<double> y;  ///< standardized
};
/// The data with y standardized (sd 1 when y is constant).
GpData standardized(const std::vector<Dimension>& dims, const std::vector<Observation>& obs);

}  // namespace tbench::search::detail
