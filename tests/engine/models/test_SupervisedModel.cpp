// topOneError (engine/models/Loss.h) against LibTorch's own argmax, on the inputs where a
// hand-written pass could differ: ties, NaN, non-contiguous logits, other dtypes.

#include <QtTest>

#include <torch/torch.h>

#include <limits>

#include "engine/models/SupervisedModel.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_SupervisedModel {

using namespace tbench;

namespace {

double reference(const torch::Tensor& logits, const torch::Tensor& labels) {
  return (logits.argmax(1) != labels).to(torch::kFloat64).mean().item<double>();
}

/// topOneError returns float32: equal to the reference within float rounding.
bool agrees(const torch::Tensor& logits, const torch::Tensor& labels) {
  return std::abs(topOneError(logits, labels).item<double>() - reference(logits, labels)) < 1e-6;
}

}  // namespace

class TestSupervisedModel : public QObject {
  Q_OBJECT
 private slots:
  void topOneErrorAgreesWithArgmax() {
    torch::manual_seed(3);
    for (int64_t classes : {1, 2, 10, 37}) {
      for (int64_t rows : {1, 7, 128}) {
        // Small integers: many rows have tied maxima, where argmax takes the first.
        const auto logits = torch::randint(0, 3, {rows, classes}).to(torch::kFloat32);
        const auto labels = torch::randint(0, classes, {rows}, torch::kInt64);
        const auto error = topOneError(logits, labels);
        QCOMPARE(error.dim(), int64_t{0});
        QCOMPARE(error.scalar_type(), torch::kFloat32);
        QVERIFY2(agrees(logits, labels), qPrintable(QString("%1 x %2").arg(rows).arg(classes)));
      }
    }
  }

  void nanCountsAsTheLargest() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto logits = torch::tensor({1.f, nan, 5.f, nan, 0.f, 2.f, 3.f, 4.f, nan}).view({3, 3});
    for (int64_t a : {0, 1, 2}) {
      for (int64_t b : {0, 1, 2}) {
        for (int64_t c : {0, 1, 2}) {
          const auto labels = torch::tensor({a, b, c}, torch::kInt64);
          QVERIFY2(agrees(logits, labels),
                   qPrintable(QString("labels %1 %2 %3").arg(a).arg(b).arg(c)));
        }
      }
    }
  }

  void nonContiguousAndOtherTypesToo() {
    torch::manual_seed(4);
    const auto transposed = torch::randn({10, 64}).t();  // [64, 10], not contiguous
    const auto labels = torch::randint(0, 10, {64}, torch::kInt64);
    QVERIFY(!transposed.is_contiguous());
    QVERIFY(agrees(transposed, labels));
    const auto doubles = transposed.to(torch::kFloat64);
    QVERIFY(agrees(doubles, labels));
    const auto grad = transposed.detach().clone().requires_grad_(true);
    QVERIFY(!topOneError(grad, labels).requires_grad());
  }
};

}  // namespace test_SupervisedModel

TB_TEST_GUILESS_MAIN(test_SupervisedModel::TestSupervisedModel)
#include "test_SupervisedModel.moc"
