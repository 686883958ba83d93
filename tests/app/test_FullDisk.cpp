// A disk that fills during a run (issue 28, Note [A checkpoint that cannot be written]): the MLP
// trains into a small tmpfs the test mounts (as root; skipped with the reason otherwise), the
// disk is filled after the first checkpoint: training goes on, the run ends failed (exit 1)
// naming the step whose state is on no disk and the checkpoint to resume from, and once space
// is freed --resume finishes the run from it.
#include <sys/mount.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/support/SkippableMain.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestFullDisk : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    disk_ = dir_.filePath("disk");
    QVERIFY(QDir().mkpath(disk_));
    if (::geteuid() != 0) {
      skipped_ = true;
      QSKIP("mounting the small filesystem needs root");
    }
    if (::mount("tmpfs", disk_.toLocal8Bit().constData(), "tmpfs", 0, "size=32m") != 0) {
      skipped_ = true;
      QSKIP(qPrintable(QString("cannot mount a 32 MB tmpfs: %1").arg(std::strerror(errno))));
    }
    mounted_ = true;
    qputenv("TB_QUIET", "1");
  }

  void cleanupTestCase() {
    if (mounted_) ::umount(disk_.toLocal8Bit().constData());
  }

  void aFullDiskFailsTheRunAndResumeFinishesIt() {
    std::ifstream in(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
    json project = json::parse(in);
    project["run_root"] = (disk_ + "/runs").toStdString();
    project["max_epoch"] = 400;
    project["callbacks"] = {{{"type", "inference"}}, {{"type", "model_saver"}, {"max_to_keep", 2}}};
    project["monitors"] = {{"tensorboard", false}};
    const QString projectFile = dir_.filePath("p.json");  // on the ordinary disk
    std::ofstream(projectFile.toStdString()) << project.dump(2);
    const QString runDir = disk_ + "/runs/r";

    QProcess train;
    train.setProcessChannelMode(QProcess::MergedChannels);
    train.start(TB_CLI_PATH, {"train", projectFile, "--run-dir", runDir});
    QVERIFY(train.waitForStarted());
    // After the first checkpoint, the disk fills.
    QTRY_VERIFY_WITH_TIMEOUT(!QDir(runDir).entryList({"model-*.pt"}).isEmpty(), 60000);
    {
      QFile filler(disk_ + "/filler");
      QVERIFY(filler.open(QIODevice::WriteOnly));
      const QByteArray block(64 * 1024, '\0');
      while (filler.write(block) == block.size()) {
      }
    }
    QVERIFY(train.state() == QProcess::Running);  // filled while it trains
    QVERIFY(train.waitForFinished(120000));
    const QString said = QString::fromLocal8Bit(train.readAll());
    QCOMPARE(train.exitCode(), 1);  // not a success
    for (const char* part :
         {"is on no disk", "No space left on device", "the newest checkpoint is", "--resume"}) {
      QVERIFY2(said.contains(part),
               qPrintable(QString("%1 not in:\n%2").arg(part, said.right(3000))));
    }
    QVERIFY2(said.contains("training failed"), qPrintable(said.right(2000)));

    // Space freed: --resume continues from the newest checkpoint to the planned end.
    QVERIFY(QFile::remove(disk_ + "/filler"));
    QProcess resume;
    resume.setProcessChannelMode(QProcess::MergedChannels);
    resume.start(TB_CLI_PATH, {"train", projectFile, "--resume", "--run-dir", runDir});
    QVERIFY(resume.waitForFinished(120000));
    QVERIFY2(resume.exitCode() == 0, qPrintable(QString::fromLocal8Bit(resume.readAll())));
    QFile runJson(runDir + "/run.json");
    QVERIFY(runJson.open(QIODevice::ReadOnly));
    const json run = json::parse(runJson.readAll().toStdString());
    QCOMPARE(run["state"].get<std::string>(), std::string("finished"));
    QCOMPARE(run["epoch"].get<int64_t>(), int64_t{400});
    QCOMPARE(run["global_step"].get<int64_t>(), run["steps_per_epoch"].get<int64_t>() * 400);
  }

 public:
  bool skipped() const { return skipped_; }

 private:
  QTemporaryDir dir_;
  QString disk_;
  bool mounted_ = false;
  bool skipped_ = false;
};

int main(int argc, char** argv) { return tbench::testing::runSkippable<TestFullDisk>(argc, argv); }
#include "test_FullDisk.moc"
