// imageGrid: exact bytes of small grids (layout, padding, range mapping, rounding, clamping,
// NaN, channel interleaving) and the shapes it refuses.
#include <QtTest>

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/callbacks/ImageGrid.h"
#include "engine/core/Check.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ImageGrid {

using namespace tbench;

namespace {

torch::Tensor tensorOf(std::vector<float> values, std::vector<int64_t> shape) {
  return torch::tensor(values).reshape(shape);
}

}  // namespace

class TestImageGrid : public QObject {
  Q_OBJECT

 private slots:
  void greyGridWithPaddingRangeAndEmptyCells() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Three 1x2 images in [-1, 1]: 0 maps to 127.5, rounded half up to 128; 2 is clamped.
    const auto images = tensorOf({-1, 1, 0, 0.5f, 2, nan}, {3, 1, 1, 2});
    const ImageData grid =
        imageGrid(images, ImageGridOptions().range(-1, 1).columns(2).padding(1).padValue(7));
    QCOMPARE(grid.channels, 1);
    QCOMPARE(grid.width, 2 * 2 + 3);
    QCOMPARE(grid.height, 2 * 1 + 3);
    const std::vector<uint8_t> expected{
        7, 7,   7,   7, 7,   7,   7,  //
        7, 0,   255, 7, 128, 191, 7,  // images 0 and 1
        7, 7,   7,   7, 7,   7,   7,  //
        7, 255, 0,   7, 7,   7,   7,  // image 2 (2 clamped, NaN black), then an empty cell
        7, 7,   7,   7, 7,   7,   7};
    QCOMPARE(grid.pixels, expected);
  }

  void rgbIsInterleavedRowMajor() {
    std::vector<float> values;
    for (int i = 0; i < 12; ++i) values.push_back(i / 11.0f);  // c * 4 + y * 2 + x
    const ImageData grid = imageGrid(tensorOf(values, {1, 3, 2, 2}), ImageGridOptions().padding(0));
    QCOMPARE(grid.channels, 3);
    QCOMPARE(grid.width, 2);
    QCOMPARE(grid.height, 2);
    const std::vector<uint8_t> expected{0,  93,  185, 23, 116, 209,   // y 0
                                        46, 139, 232, 70, 162, 255};  // y 1
    QCOMPARE(grid.pixels, expected);
  }

  void columnsDefaultToASquareAndNeverExceedTheCount() {
    const auto five = torch::zeros({5, 1, 2, 3});
    ImageData grid = imageGrid(five, ImageGridOptions().padding(2));
    QCOMPARE(grid.width, 3 * 3 + 4 * 2);   // ceil(sqrt(5)) = 3 columns
    QCOMPARE(grid.height, 2 * 2 + 3 * 2);  // 2 rows
    QCOMPARE(grid.pixels.size(), size_t(grid.width * grid.height));

    grid = imageGrid(torch::ones({2, 1, 2, 2}), ImageGridOptions().columns(8).padding(0));
    QCOMPARE(grid.width, 4);
    QCOMPARE(grid.height, 2);
    QCOMPARE(grid.pixels, std::vector<uint8_t>(8, 255));

    // Doubles and non-contiguous views are read as the values they hold.
    const auto wide = torch::tensor({0.0, 1.0}, torch::kFloat64).reshape({1, 1, 2, 1});
    grid = imageGrid(wide.transpose(2, 3), ImageGridOptions().padding(0));
    QCOMPARE(grid.pixels, (std::vector<uint8_t>{0, 255}));
  }

  void refusesWhatIsNotAnImageBatch() {
    QVERIFY_THROWS_EXCEPTION(CheckError, imageGrid(torch::zeros({1, 2, 2})));
    QVERIFY_THROWS_EXCEPTION(CheckError, imageGrid(torch::zeros({1, 2, 2, 2})));
    QVERIFY_THROWS_EXCEPTION(CheckError, imageGrid(torch::zeros({0, 1, 2, 2})));
    QVERIFY_THROWS_EXCEPTION(CheckError, imageGrid(torch::zeros({1, 1, 2, 2}, torch::kUInt8)));
    QVERIFY_THROWS_EXCEPTION(CheckError,
                             imageGrid(torch::zeros({1, 1, 2, 2}), ImageGridOptions().range(1, 1)));
    QVERIFY_THROWS_EXCEPTION(CheckError,
                             imageGrid(torch::zeros({1, 1, 2, 2}), ImageGridOptions().padding(17)));
    QVERIFY_THROWS_EXCEPTION(CheckError,
                             imageGrid(torch::zeros({1, 1, 2, 2}), ImageGridOptions().columns(-1)));
    QVERIFY_THROWS_EXCEPTION(CheckError, imageGrid(torch::Tensor()));
  }
};

}  // namespace test_ImageGrid

TB_TEST_GUILESS_MAIN(test_ImageGrid::TestImageGrid)
#include "test_ImageGrid.moc"
