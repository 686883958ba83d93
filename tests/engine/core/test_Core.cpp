// core: TB_CHECK messages, device strings, atomic files.

#include <QtTest>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <ATen/Parallel.h>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/ChildProcess.h"
#include "engine/core/Device.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Environment.h"
#include "tests/support/ScopedEnvironment.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Core {

using namespace tbench;

class TestCore : public QObject {
  Q_OBJECT
 private slots:
  void checkPutsValuesInTheMessage() {
    const int batch = 0;
    try {
      TB_CHECK(batch > 0, "batch size must be positive, got ", batch);
      QFAIL("expected a CheckError");
    } catch (const CheckError& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("batch size must be positive, got 0") == 0, e.what());
      QVERIFY2(m.find("`batch > 0`") != std::string::npos, e.what());
      QVERIFY2(m.find("test_Core.cpp:") != std::string::npos, e.what());
    }
  }

  void deviceStrings() {
    QCOMPARE(Device::parse("cpu").toString(), std::string("cpu"));
    QCOMPARE(Device::parse("cuda").toString(), std::string("cuda:0"));
    QCOMPARE(Device::parse("cuda:3").index, 3);
    for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "CPU", "", "cuda:99999"}) {
      try {
        Device::parse(bad);
        QFAIL(bad);
      } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(std::string("\"") + bad + "\"") != std::string::npos,
                 e.what());
      }
    }
  }

  void discoveryListsCpuFirstAndRejectsMissingDevices() {
    const auto devices = availableDevices();
    QVERIFY(!devices.empty());
    QCOMPARE(devices.front().toString(), std::string("cpu"));
    requireAvailable(Device{});
    try {
      requireAvailable(Device::parse("cuda:9"));
      QFAIL("cuda:9 cannot exist here");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("\"cuda:9\" is not available (available: cpu") !=
                   std::string::npos,
               e.what());
    }
  }

  void atomicWriteReplacesAndFailsCleanly() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/file.json";
    writeFileAtomically(path, "first");
    writeFileAtomically(path, "second");
    QCOMPARE(readFile(path), std::string("second"));
    // A directory that does not exist: the error names the path, nothing is left behind.
    const std::string bad = dir.path().toStdString() + "/missing/file.json";
    try {
      writeFileAtomically(bad, "x");
      QFAIL("expected a runtime_error");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("missing/file.json") != std::string::npos, e.what());
    }
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()),
                           std::filesystem::directory_iterator()),
             1L);
    QVERIFY_THROWS_EXCEPTION(InputError, readFile(bad));
  }

  void temporaryFilesNameTheirWriter() {
    // What a writer killed before its rename leaves (test_Faults finds them after SIGKILLs).
    auto writer = temporaryFileWriter("model-24.pt.tmp-vm-30194");
    QVERIFY(writer.has_value());
    QCOMPARE(writer->target, std::string("model-24.pt"));
    QCOMPARE(writer->host, std::string("vm"));
    QCOMPARE(writer->pid, int64_t{30194});
    writer = temporaryFileWriter("stats.json.tmp-node-1.cluster-42");
    QVERIFY(writer.has_value());
    QCOMPARE(writer->host, std::string("node-1.cluster"));
    QCOMPARE(writer->pid, int64_t{42});
    for (const char* other : {"model-24.pt", "a.tmp-host-x1", ".tmp-host-1", "a.tmp-12",
                              "a.tmp-host-", "a.tmp-host-1234567890123456789"}) {
      QVERIFY2(!temporaryFileWriter(other).has_value(), other);
    }
  }

  // The one way the engine and the CLI start a program (issue 38): a trial's output appended to
  // a file, launch's ranks through a pipe, the queue's squeue and sbatch captured.
  void aChildProcessHasOneExitStatusAndItsOutputWhereAsked() {
    QTemporaryDir dir;
    const std::string out = dir.filePath("trial.out").toStdString();
    std::ofstream(out) << "earlier\n";
    ProcessSpec spec;
    spec.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"};
    spec.output = ProcessSpec::Output::File;
    spec.outputFile = out;
    ChildProcess child;
    QCOMPARE(startProcess(spec, &child), 0);
    QCOMPARE(waitProcess(child.pid), std::optional<int>(3));
    std::ifstream in(out);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    QCOMPARE(QString::fromStdString(text), QString("earlier\nout\nerr\n"));  // appended, both

    // Through a pipe, with the environment changed: one variable set, one removed.
    ::setenv("TB_CHILD_GONE", "still here", 1);
    spec = ProcessSpec();
    spec.argv = {"sh", "-c", "echo \"$TB_CHILD_SET/${TB_CHILD_GONE:-unset}\""};
    spec.output = ProcessSpec::Output::Pipe;
    spec.setEnv = {{"TB_CHILD_SET", "set"}};
    spec.unsetEnv = {"TB_CHILD_GONE"};
    QCOMPARE(startProcess(spec, &child), 0);
    QCOMPARE(QString::fromStdString(readToEnd(child.output)), QString("set/unset\n"));
    QCOMPARE(waitProcess(child.pid), std::optional<int>(0));
    ::unsetenv("TB_CHILD_GONE");

    // Ended by a signal: 128 + the signal, as the window's CliProcess says it.
    spec = ProcessSpec();
    spec.argv = {"sh", "-c", "kill -9 $$"};
    QCOMPARE(startProcess(spec, &child), 0);
    QCOMPARE(waitProcess(child.pid), std::optional<int>(128 + SIGKILL));

    // Its own process group, and not finished yet when asked without blocking.
    spec = ProcessSpec();
    spec.argv = {"sleep", "5"};
    spec.ownProcessGroup = true;
    QCOMPARE(startProcess(spec, &child), 0);
    QCOMPARE(::getpgid(child.pid), child.pid);
    QCOMPARE(waitProcess(child.pid, false), std::nullopt);
    ::kill(child.pid, SIGTERM);
    QCOMPARE(waitProcess(child.pid), std::optional<int>(128 + SIGTERM));

    // A program that cannot start is an errno, with no child left behind.
    spec = ProcessSpec();
    spec.argv = {"/nonexistent/towerbench-no-such-program"};
    QCOMPARE(startProcess(spec, &child), ENOENT);
    QCOMPARE(::waitpid(-1, nullptr, WNOHANG), pid_t(-1));
    spec.argv = {"towerbench-no-such-program-in-path"};
    QCOMPARE(startProcess(spec, &child), ENOENT);

    std::string captured;
    QCOMPARE(runCapturing({"sh", "-c", "echo captured; exit 4"}, &captured), 4);
    QCOMPARE(QString::fromStdString(captured), QString("captured\n"));
    QCOMPARE(runCapturing({"towerbench-no-such-program-in-path"}, &captured), 127);
  }

  // The intra-op threads: the project's num_threads, else OMP_NUM_THREADS as PyTorch honours
  // it, else the CPUs this process may run on (its affinity: taskset, a cpuset, SLURM's
  // --cpus-per-task), shared among the host's ranks.
  void threadsFollowTheAffinityAndOmpNumThreads() {
    const int64_t before = at::get_num_threads();
    cpu_set_t all;
    QCOMPARE(sched_getaffinity(0, sizeof(all), &all), 0);
    QCOMPARE(availableCores(), int64_t(CPU_COUNT(&all)));
    {
      tbench::testing::ScopedEnvironment unset("OMP_NUM_THREADS", nullptr);
      tbench::testing::ScopedEnvironment ranks("LOCAL_WORLD_SIZE", nullptr);
      cpu_set_t one;
      CPU_ZERO(&one);
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &all)) {
          CPU_SET(cpu, &one);
          break;
        }
      }
      QCOMPARE(sched_setaffinity(0, sizeof(one), &one), 0);  // this thread: taskset -c N
      QCOMPARE(availableCores(), int64_t{1});
      QCOMPARE(coresForThisProcess(), int64_t{1});
      QCOMPARE(sched_setaffinity(0, sizeof(all), &all), 0);
      QCOMPARE(coresForThisProcess(), int64_t(CPU_COUNT(&all)));
      tbench::testing::ScopedEnvironment shared("LOCAL_WORLD_SIZE", "2");
      QCOMPARE(coresForThisProcess(), std::max<int64_t>(1, CPU_COUNT(&all) / 2));
    }
    for (const auto& [value, threads] : std::vector<std::pair<const char*, int64_t>>{
             {"3", 3}, {"4,2", 4}, {"0", 0}, {"-2", 0}, {"many", 0}, {"2x", 0}, {"", 0}}) {
      tbench::testing::ScopedEnvironment omp("OMP_NUM_THREADS", value);
      QCOMPARE(threadsFromEnvironment(), threads);
    }
    {
      tbench::testing::ScopedEnvironment omp("OMP_NUM_THREADS", "3");
      configureThreads(0);
      QCOMPARE(at::get_num_threads(), 3);
      configureThreads(1);  // the project's num_threads wins
      QCOMPARE(at::get_num_threads(), 1);
    }
    at::set_num_threads(static_cast<int>(before));
  }
};

}  // namespace test_Core

TB_TEST_GUILESS_MAIN(test_Core::TestCore)
#include "test_Core.moc"
