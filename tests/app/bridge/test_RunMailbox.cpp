// RunMailbox, the hand-over from the engine thread to the GUI thread: in order, merged, one
// wake-up per drain however fast the engine posts, the latest progress only.

#include <QtTest>

#include <atomic>
#include <thread>

#include "app/bridge/RunMailbox.h"

using namespace tbench::bridge;

class TestRunMailbox : public QObject {
  Q_OBJECT
 private slots:
  void mergesInOrderAndWakesOncePerDrain() {
    int wakes = 0;
    RunMailbox mailbox([&] { ++wakes; });
    mailbox.addSample(MetricSample{"cost", 1, 1, 0.0, 0.5});
    mailbox.addSample(MetricSample{"cost", 2, 1, 0.0, 0.4});
    mailbox.addLogLine("one");
    mailbox.addLogLine("two");
    RunEvent started{RunEvent::Kind::Started};
    started.text = "run";
    mailbox.post(started);
    mailbox.addSample(MetricSample{"cost", 3, 1, 0.0, 0.3});
    RunProgress p;
    p.globalStep = 2;
    mailbox.setProgress(p);
    p.globalStep = 3;
    mailbox.setProgress(p);
    QCOMPARE(wakes, 1);

    std::optional<RunProgress> progress;
    const std::deque<RunEvent> events = mailbox.take(&progress);
    QCOMPARE(events.size(), size_t{4});
    QCOMPARE(events[0].kind, RunEvent::Kind::Metrics);
    QCOMPARE(events[0].samples.size(), 2);
    QCOMPARE(events[1].kind, RunEvent::Kind::Log);
    QCOMPARE(events[1].lines, (QStringList{"one", "two"}));
    QCOMPARE(events[2].kind, RunEvent::Kind::Started);
    QCOMPARE(events[3].samples.front().step, qint64{3});
    QVERIFY(progress.has_value());
    QCOMPARE(progress->globalStep, qint64{3});

    // Nothing new: no progress, no events; the next post wakes again.
    std::optional<RunProgress> none;
    QVERIFY(mailbox.take(&none).empty());
    QVERIFY(!none.has_value());
    mailbox.addLogLine("three");
    QCOMPARE(wakes, 2);
  }

  // An engine thread posting as fast as it can while the GUI thread drains: every sample
  // arrives once, in order.
  void nothingIsLostAcrossThreads() {
    std::atomic<int> wakes{0};
    RunMailbox mailbox([&] { ++wakes; });
    constexpr int kSamples = 20000;
    std::thread engine([&] {
      for (int i = 1; i <= kSamples; ++i) mailbox.addSample(MetricSample{"cost", i, 1, 0.0, 1.0});
      RunEvent finished{RunEvent::Kind::Finished};
      mailbox.post(finished);
    });
    qint64 expected = 1;
    bool done = false;
    while (!done) {
      std::optional<RunProgress> progress;
      for (const RunEvent& e : mailbox.take(&progress)) {
        if (e.kind == RunEvent::Kind::Finished) done = true;
        for (const MetricSample& s : e.samples) QCOMPARE(s.step, expected++);
      }
      std::this_thread::yield();
    }
    engine.join();
    QCOMPARE(expected, qint64{kSamples + 1});
    QVERIFY(wakes.load() >= 1 && wakes.load() <= kSamples);
  }
};

QTEST_GUILESS_MAIN(TestRunMailbox)
#include "test_RunMailbox.moc"
