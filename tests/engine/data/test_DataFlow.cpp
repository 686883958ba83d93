// The DataFlow contract and its combinators, on small in-memory flows.

#include <QtTest/QtTest>

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/DataFromList.h"
#include "engine/data/FixedSizeData.h"
#include "engine/data/LocallyShuffleData.h"
#include "engine/data/MapData.h"
#include "engine/data/RepeatedData.h"
#include "engine/data/ShardedData.h"
#include "tests/support/ExpectError.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_DataFlow {

using namespace tbench;

using tbench::testing::contains;
using tbench::testing::messageOf;

namespace {

// Points {i} for i in [0, n): one int64 scalar each.
std::shared_ptr<DataFromList> numbers(int64_t n, bool shuffle = false, uint64_t seed = 0) {
  std::vector<Datapoint> points;
  for (int64_t i = 0; i < n; ++i) points.push_back({torch::tensor(i)});
  return std::make_shared<DataFromList>(std::move(points), shuffle, seed);
}

// The first component of every point of one pass, as numbers; at most `cap` of them.
std::vector<int64_t> collect(DataFlow& flow, size_t cap = 100000) {
  std::vector<int64_t> values;
  auto pass = flow.pass();
  Datapoint point;
  while (values.size() < cap && pass.next(point)) values.push_back(point.at(0).item<int64_t>());
  return values;
}

std::vector<int64_t> range(int64_t n) {
  std::vector<int64_t> values(n);
  std::iota(values.begin(), values.end(), int64_t{0});
  return values;
}

bool isPermutationOfRange(std::vector<int64_t> values, int64_t n) {
  std::sort(values.begin(), values.end());
  return values == range(n);
}

}  // namespace

class TestDataFlow : public QObject {
  Q_OBJECT

 private slots:
  // ShardedData (the distributed strategy's): shard r of W takes points r, r+W, ... of every
  // pass, floor(n / W) of them, so the shards are disjoint and the remainder goes to none; a
  // child of unknown size ends every shard at the last complete round.
  void shardedDataSplitsEveryPassByPosition() {
    std::vector<int64_t> all;
    for (int64_t r = 0; r < 3; ++r) {
      ShardedData shard(numbers(10), static_cast<int>(r), 3);
      shard.resetState();
      QCOMPARE(shard.size(), std::optional<int64_t>(3));
      const std::vector<int64_t> first = collect(shard);
      QCOMPARE(first, (std::vector<int64_t>{r, r + 3, r + 6}));
      QCOMPARE(collect(shard), first);  // every pass alike
      all.insert(all.end(), first.begin(), first.end());
    }
    std::sort(all.begin(), all.end());
    QCOMPARE(all, range(9));  // point 9, the remainder, goes to no shard
    auto unknown = std::make_shared<MapData>(
        numbers(8), [](Datapoint p) -> std::optional<Datapoint> { return p; }, /*mayDrop=*/true);
    ShardedData last(unknown, 2, 3);
    last.resetState();
    QCOMPARE(last.size(), std::optional<int64_t>());
    QCOMPARE(collect(last), (std::vector<int64_t>{2, 5}));  // round {6, 7} is incomplete
    ShardedData first(std::make_shared<MapData>(
                          numbers(8), [](Datapoint p) -> std::optional<Datapoint> { return p; },
                          /*mayDrop=*/true),
                      0, 3);
    first.resetState();
    QCOMPARE(collect(first), (std::vector<int64_t>{0, 3}));
    QVERIFY(contains(messageOf<CheckError>([] { ShardedData(numbers(3), 3, 3); }),
                     "shard 3 is outside [0, 3)"));
  }

  void dataFromListInOrder() {
    auto flow = numbers(5);
    QCOMPARE(flow->size().value(), int64_t{5});
    flow->resetState();
    QCOMPARE(collect(*flow), range(5));
    QCOMPARE(collect(*flow), range(5));  // every pass starts over
  }

  void dataFromListShuffleIsReproducible() {
    auto a = numbers(50, true, 7);
    auto b = numbers(50, true, 7);
    auto c = numbers(50, true, 8);
    a->resetState();
    b->resetState();
    c->resetState();
    const auto a0 = collect(*a);
    const auto a1 = collect(*a);
    const auto b0 = collect(*b);
    const auto b1 = collect(*b);
    const auto c0 = collect(*c);
    QVERIFY(isPermutationOfRange(a0, 50));
    QVERIFY(isPermutationOfRange(a1, 50));
    QVERIFY(a0 != range(50));
    QCOMPARE(a0, b0);  // same seed, same pass number: same order
    QCOMPARE(a1, b1);
    QVERIFY(a0 != a1);  // passes differ
    QVERIFY(a0 != c0);  // seeds differ
  }

  void batchDataDropsTheRemainder() {
    auto batched = std::make_shared<BatchData>(numbers(10), 4);
    QCOMPARE(batched->size().value(), int64_t{2});
    batched->resetState();
    auto pass = batched->pass();
    Datapoint batch;
    QVERIFY(pass.next(batch));
    QCOMPARE(batch.size(), size_t{1});
    QCOMPARE(batch[0].sizes().vec(), std::vector<int64_t>({4}));
    QVERIFY(torch::equal(batch[0], torch::arange(0, 4, torch::kInt64)));
    QVERIFY(pass.next(batch));
    QVERIFY(torch::equal(batch[0], torch::arange(4, 8, torch::kInt64)));
    QVERIFY(!pass.next(batch));
    QVERIFY(!pass.next(batch));  // stays ended
  }

  void batchDataKeepsTheRemainder() {
    auto batched = std::make_shared<BatchData>(numbers(10), 4, /*remainder=*/true);
    QCOMPARE(batched->size().value(), int64_t{3});
    batched->resetState();
    std::vector<int64_t> sizes;
    auto pass = batched->pass();
    Datapoint batch;
    while (pass.next(batch)) sizes.push_back(batch[0].size(0));
    QCOMPARE(sizes, std::vector<int64_t>({4, 4, 2}));

    auto exact = std::make_shared<BatchData>(numbers(8), 4, true);
    QCOMPARE(exact->size().value(), int64_t{2});
  }

  void batchDataStacksEveryComponent() {
    std::vector<Datapoint> points;
    for (int64_t i = 0; i < 6; ++i) {
      points.push_back({torch::full({2, 3}, static_cast<float>(i)), torch::tensor(i)});
    }
    auto batched =
        std::make_shared<BatchData>(std::make_shared<DataFromList>(std::move(points)), 3);
    batched->resetState();
    auto pass = batched->pass();
    Datapoint batch;
    QVERIFY(pass.next(batch));
    QCOMPARE(batch.size(), size_t{2});
    QCOMPARE(batch[0].sizes().vec(), std::vector<int64_t>({3, 2, 3}));
    QCOMPARE(batch[0].scalar_type(), torch::kFloat32);
    QCOMPARE(batch[1].sizes().vec(), std::vector<int64_t>({3}));
    QCOMPARE(batch[0][2][1][2].item<float>(), 2.0f);
  }

  void batchDataReportsAShapeMismatch() {
    std::vector<Datapoint> points = {{torch::zeros({2, 3})}, {torch::zeros({3, 2})}};
    auto batched =
        std::make_shared<BatchData>(std::make_shared<DataFromList>(std::move(points)), 2);
    batched->resetState();
    const auto message = messageOf<CheckError>([&] {
      auto pass = batched->pass();
      Datapoint batch;
      pass.next(batch);
    });
    QVERIFY2(contains(message, "cannot batch component 0"), message.value_or("none").c_str());
    QVERIFY2(contains(message, "[3, 2]") && contains(message, "[2, 3]"),
             message.value_or("none").c_str());
  }

  void batchDataRejectsAFlowSmallerThanABatch() {
    const auto message = messageOf<CheckError>([] { BatchData batched(numbers(3), 4); });
    QVERIFY2(contains(message, "fewer than one batch"), message.value_or("none").c_str());
    BatchData withRemainder(numbers(3), 4, true);  // one smaller batch is fine here
    QCOMPARE(withRemainder.size().value(), int64_t{1});
  }

  void mapDataTransforms() {
    auto mapped = std::make_shared<MapData>(numbers(4), [](Datapoint point) {
      return std::optional<Datapoint>(Datapoint{point[0] * 10});
    });
    QCOMPARE(mapped->size().value(), int64_t{4});
    mapped->resetState();
    QCOMPARE(collect(*mapped), std::vector<int64_t>({0, 10, 20, 30}));
  }

  void mapDataDropsPoints() {
    auto mapped = std::make_shared<MapData>(
        numbers(7),
        [](Datapoint point) -> std::optional<Datapoint> {
          if (point[0].item<int64_t>() % 2 == 1) return std::nullopt;
          return point;
        },
        /*mayDrop=*/true);
    QVERIFY(!mapped->size().has_value());  // unknown once points may be dropped
    mapped->resetState();
    QCOMPARE(collect(*mapped), std::vector<int64_t>({0, 2, 4, 6}));
    QCOMPARE(collect(*mapped), std::vector<int64_t>({0, 2, 4, 6}));
  }

  void mapDataRefusesAnUndeclaredDrop() {
    // size() promised the child's count, so a silent drop would break it.
    auto mapped = std::make_shared<MapData>(
        numbers(3), [](Datapoint) -> std::optional<Datapoint> { return std::nullopt; });
    mapped->resetState();
    const auto message = messageOf<CheckError>([&] { collect(*mapped); });
    QVERIFY2(contains(message, "mayDrop"), message.value_or("none").c_str());
  }

  void repeatedDataFinite() {
    auto repeated = std::make_shared<RepeatedData>(numbers(4, true, 3), 3);
    QCOMPARE(repeated->size().value(), int64_t{12});
    repeated->resetState();
    const auto values = collect(*repeated);
    QCOMPARE(values.size(), size_t{12});
    const std::vector<int64_t> first(values.begin(), values.begin() + 4);
    const std::vector<int64_t> second(values.begin() + 4, values.begin() + 8);
    const std::vector<int64_t> third(values.begin() + 8, values.end());
    QVERIFY(isPermutationOfRange(first, 4));
    QVERIFY(isPermutationOfRange(second, 4));
    QVERIFY(isPermutationOfRange(third, 4));
    QVERIFY(first != second || second != third);      // each repetition is a new child pass
    QCOMPARE(collect(*repeated).size(), size_t{12});  // and the next pass repeats again
  }

  void repeatedDataForever() {
    auto repeated = std::make_shared<RepeatedData>(numbers(3), -1);
    QVERIFY(!repeated->size().has_value());
    repeated->resetState();
    QCOMPARE(collect(*repeated, 8), std::vector<int64_t>({0, 1, 2, 0, 1, 2, 0, 1}));
  }

  void fixedSizeDataContinuesAcrossPasses() {
    auto fixed = std::make_shared<FixedSizeData>(numbers(5), 3);
    QCOMPARE(fixed->size().value(), int64_t{3});
    fixed->resetState();
    QCOMPARE(collect(*fixed), std::vector<int64_t>({0, 1, 2}));
    QCOMPARE(collect(*fixed), std::vector<int64_t>({3, 4, 0}));
    QCOMPARE(collect(*fixed), std::vector<int64_t>({1, 2, 3}));
  }

  void fixedSizeDataContinuesAfterAnAbandonedPass() {
    auto fixed = std::make_shared<FixedSizeData>(numbers(10), 4);
    fixed->resetState();
    QCOMPARE(collect(*fixed, 1), std::vector<int64_t>({0}));  // closed after one point
    QCOMPARE(collect(*fixed), std::vector<int64_t>({1, 2, 3, 4}));
  }

  void locallyShuffleDataIsAReproduciblePermutation() {
    auto a = std::make_shared<LocallyShuffleData>(numbers(100), 16, 5);
    auto b = std::make_shared<LocallyShuffleData>(numbers(100), 16, 5);
    QCOMPARE(a->size().value(), int64_t{100});
    a->resetState();
    b->resetState();
    const auto a0 = collect(*a);
    const auto a1 = collect(*a);
    QVERIFY(isPermutationOfRange(a0, 100));
    QVERIFY(isPermutationOfRange(a1, 100));
    QVERIFY(a0 != range(100));
    QVERIFY(a0 != a1);
    QCOMPARE(collect(*b), a0);
    QCOMPARE(collect(*b), a1);
    // Local: a point cannot come out before the buffer has been filled up to it.
    for (size_t i = 0; i < a0.size(); ++i) QVERIFY(a0[i] < static_cast<int64_t>(i) + 16);
  }

  void locallyShuffleDataWithABufferLargerThanTheFlow() {
    auto shuffled = std::make_shared<LocallyShuffleData>(numbers(5), 64, 1);
    shuffled->resetState();
    QVERIFY(isPermutationOfRange(collect(*shuffled), 5));
  }

  void resetStateTwiceThrows() {
    auto flow = numbers(3);
    flow->resetState();
    const auto message = messageOf<CheckError>([&] { flow->resetState(); });
    QVERIFY2(contains(message, "once and only once"), message.value_or("none").c_str());
  }

  void passBeforeResetStateThrows() {
    auto flow = numbers(3);
    const auto message = messageOf<CheckError>([&] { flow->pass(); });
    QVERIFY2(contains(message, "resetState() must be called"), message.value_or("none").c_str());
    flow->resetState();
    QCOMPARE(collect(*flow), range(3));
  }

  void twoOpenPassesThrow() {
    auto flow = numbers(3);
    flow->resetState();
    {
      auto first = flow->pass();
      const auto message = messageOf<CheckError>([&] { flow->pass(); });
      QVERIFY2(contains(message, "not reentrant"), message.value_or("none").c_str());
      Datapoint point;
      QVERIFY(first.next(point));  // the open pass is unharmed
      QCOMPARE(point[0].item<int64_t>(), int64_t{0});
    }
    QCOMPARE(collect(*flow), range(3));  // closing the pass released the guard
  }

  void aWrappedFlowCannotBeIteratedTwice() {
    // A flow already consumed by a combinator cannot be iterated directly at the same time.
    auto child = numbers(4);
    auto batched = std::make_shared<BatchData>(child, 2);
    batched->resetState();
    auto pass = batched->pass();
    const auto message = messageOf<CheckError>([&] { child->pass(); });
    QVERIFY2(contains(message, "not reentrant"), message.value_or("none").c_str());
  }

  void movingAPassKeepsItOpen() {
    auto flow = numbers(3);
    flow->resetState();
    auto first = flow->pass();
    DataPass moved = std::move(first);
    Datapoint point;
    QVERIFY(!first.next(point));  // NOLINT(bugprone-use-after-move): a moved-from pass is empty
    QVERIFY(moved.next(point));
    QVERIFY(messageOf<CheckError>([&] { flow->pass(); }).has_value());
  }
};

}  // namespace test_DataFlow

TB_TEST_APPLESS_MAIN(test_DataFlow::TestDataFlow)
#include "test_DataFlow.moc"
