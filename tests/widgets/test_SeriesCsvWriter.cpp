// SeriesCsvWriter: exact text, number formatting and quoting.

#include <QtTest>

#include <cmath>

#include "tests/support/TestMain.h"
#include "widgets/SeriesCsvWriter.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_SeriesCsvWriter {

using namespace tbench::ui;

class TestSeriesCsvWriter : public QObject {
  Q_OBJECT
 private slots:
  void writesRowsInArrivalOrderWithShortestNumbers() {
    SeriesStore store;
    store.setSmoothingWeight(0.5);
    store.append({{"run 1", "cost", 1, 1, 1700000000.25, 1.0},
                  {"run 1", "cost", 2, 1, 1700000001.5, 3.0},
                  {"run 1", "validation_cost", 2, 1, 1700000001.75, 0.1}});
    QString text;
    QTextStream out(&text);
    SeriesCsvWriter::write(out, store, {{"run 1", "cost"}, {"run 1", "validation_cost"}});
    out.flush();
    QCOMPARE(text, QString("run,name,step,epoch,wall_time,value,smoothed\n"
                           "run 1,cost,1,1,1700000000.25,1,1\n"
                           "run 1,cost,2,1,1700000001.5,3,2.3333333333333335\n"
                           "run 1,validation_cost,2,1,1700000001.75,0.1,0.1\n"));
  }

  void quotesAwkwardNamesAndSpellsNonFiniteValues() {
    SeriesStore store;
    store.append({{"a,b", "say \"hi\"", 7, 2, 0.0, std::nan("")},
                  {"a,b", "say \"hi\"", 8, 2, 1.0, -INFINITY}});
    QString text;
    QTextStream out(&text);
    SeriesCsvWriter::write(out, store, {{"a,b", "say \"hi\""}, {"unknown", "skipped"}});
    out.flush();
    QCOMPARE(text, QString("run,name,step,epoch,wall_time,value,smoothed\n"
                           "\"a,b\",\"say \"\"hi\"\"\",7,2,0,nan,nan\n"
                           "\"a,b\",\"say \"\"hi\"\"\",8,2,1,-inf,-inf\n"));
  }

  void reportsAnUnwritablePath() {
    SeriesStore store;
    QString error;
    QVERIFY(!SeriesCsvWriter::writeFile("/nonexistent-dir/x.csv", store, {}, &error));
    QVERIFY2(error.contains("/nonexistent-dir/x.csv"), qPrintable(error));
  }
};

}  // namespace test_SeriesCsvWriter

TB_TEST_GUILESS_MAIN(test_SeriesCsvWriter::TestSeriesCsvWriter)
#include "test_SeriesCsvWriter.moc"
