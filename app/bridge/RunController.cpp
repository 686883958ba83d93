#include "app/bridge/RunController.h"

#include <QCoreApplication>
#include <QEvent>
#include <QLocale>
#include <QThread>
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/bridge/BridgeMonitor.h"
#include "app/bridge/RunMailbox.h"
#include "engine/core/Logging.h"
#include "engine/core/Names.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/LiveCommands.h"
#include "engine/run/RunPreparation.h"

namespace tbench::bridge {

namespace fs = std::filesystem;

/// What the GUI thread and the engine thread share about the current run.
struct EngineRun {
  std::shared_ptr<RunMailbox> mailbox;
  std::shared_ptr<BridgeMonitor> monitor;

  std::mutex mutex;            // guards everything below
  Trainer* trainer = nullptr;  // set while train() runs
  std::shared_ptr<ModelSaver> modelSaver;
  std::string runDir;
  bool stopBeforeStart = false;
  bool pauseBeforeStart = false;
  bool scheduleEnabled = false;
};

namespace {

void logToMailbox(LogLevel, const std::string& line, void* user) {
  QString text = QString::fromStdString(line);
  while (text.endsWith('\n')) text.chop(1);
  static_cast<RunMailbox*>(user)->addLogLine(text);
}

/// Engine thread, between steps: saves through the project's ModelSaver when it has one.
/// `manual`: the window's "save now" (kept for good and marked so in the index); otherwise the
/// final checkpoint of a stop, listed as the latest (Note [Live commands]).
void saveNow(EngineRun& engine, Trainer& trainer, bool manual) {
  std::shared_ptr<ModelSaver> saver;
  std::string runDir;
  {
    std::lock_guard<std::mutex> lock(engine.mutex);
    saver = engine.modelSaver;
    runDir = engine.runDir;
  }
  const std::string path = live::saveNow(trainer, saver.get(), runDir,
                                         manual ? live::SaveKind::Manual : live::SaveKind::Final);
  if (path.empty()) return;
  RunEvent event{RunEvent::Kind::CheckpointSaved};
  event.text = QString::fromStdString(path);
  engine.mailbox->post(std::move(event));
}

void runOnEngineThread(const std::shared_ptr<EngineRun>& engine, const StartOptions& options) {
  RunMailbox& mailbox = *engine->mailbox;
  logging::setExtraSink(&logToMailbox, &mailbox);
  const std::string source =
      options.projectPath.isEmpty() ? std::string("project") : options.projectPath.toStdString();
  try {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(options.projectText.toStdString());
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(str(source, ": not valid JSON: ", e.what()));
    }
    RunRequest request;
    request.project = projectFromJson(doc, source);
    request.runDir = options.runDir.toStdString();
    request.resume = options.resume;
    // "resumed" in the origin tells a resumed session (whose run.json times cover it alone)
    // from a whole run, as the CLI's --resume does (RunDirectoryInfo's epoch time).
    request.origin = str(options.resume ? "resumed" : "started", " from the GUI (", source, ")");
    request.extraMonitors = {engine->monitor};
    const bool scheduleEnabled = request.project.schedule.enabled;
    const std::unique_ptr<PreparedRun> run = prepareRun(std::move(request));
    TowerTrainer& trainer = *run->built.trainer;

    bool stop = false;
    {
      std::lock_guard<std::mutex> lock(engine->mutex);
      engine->runDir = run->runDir;
      engine->scheduleEnabled = scheduleEnabled;
      engine->trainer = &trainer;
      engine->modelSaver = run->built.modelSaver;
      stop = engine->stopBeforeStart;
      if (engine->pauseBeforeStart) trainer.setPaused(true);
    }
    if (stop) trainer.requestStop();
    RunEvent started{RunEvent::Kind::Started};
    started.text = QString::fromStdString(run->runDir);
    started.stepsPerEpoch = run->loop.stepsPerEpoch;
    started.maxEpoch = run->loop.maxEpoch;
    started.samplesPerStep = run->samplesPerStep();
    mailbox.post(std::move(started));

    std::string error;
    const tbench::RecordedState outcome = trainPreparedRun(*run, &error);
    {
      std::lock_guard<std::mutex> lock(engine->mutex);
      engine->trainer = nullptr;
    }
    if (outcome == tbench::RecordedState::Failed) {
      RunEvent failed{RunEvent::Kind::Failed};
      failed.text = QString::fromStdString(error);
      mailbox.post(std::move(failed));
    } else {
      RunEvent finished{RunEvent::Kind::Finished};
      finished.stoppedEarly = outcome == tbench::RecordedState::Stopped;
      mailbox.post(std::move(finished));
    }
  } catch (const std::exception& e) {
    {
      std::lock_guard<std::mutex> lock(engine->mutex);
      engine->trainer = nullptr;
    }
    TB_LOG(Error) << "training failed: " << e.what();
    RunEvent failed{RunEvent::Kind::Failed};
    failed.text = QString::fromStdString(e.what());
    mailbox.post(std::move(failed));
  }
  logging::setExtraSink(nullptr, nullptr);
}

}  // namespace

RunController::RunController(QObject* parent) : QObject(parent) {
  registerBridgeTypes();
  drainTimer_.setSingleShot(true);
  connect(&drainTimer_, &QTimer::timeout, this, &RunController::drain);
}

RunController::~RunController() {
  if (thread_) {
    stop();
    thread_->wait();
    delete thread_;
  }
}

bool RunController::isActive() const {
  return state_ == RunState::Starting || state_ == RunState::Running ||
         state_ == RunState::Paused || state_ == RunState::Stopping;
}

qint64 RunController::globalStep() const {
  const auto engine = engine_;
  return engine ? engine->monitor->globalStep() : 0;
}

bool RunController::start(const StartOptions& options, QString* error) {
  if (isActive() || (thread_ && thread_->isRunning())) {
    if (error) *error = tr("a run is already active (%1)").arg(runDir_);
    return false;
  }
  if (thread_) {
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  drain();  // whatever the last run left
  auto engine = std::make_shared<EngineRun>();
  // The wake-up is a posted event, which the engine thread does not touch once posted. A queued
  // invokeMethod allocates a slot object that the engine thread may release after the GUI
  // thread ran it, ordered by Qt's reference count, which ThreadSanitizer cannot see in the
  // uninstrumented Qt (it reported that; docs/ARCHITECTURE.md §8a).
  engine->mailbox = std::make_shared<RunMailbox>(
      [this] { QCoreApplication::postEvent(this, new QEvent(wakeEventType())); });
  engine->monitor = std::make_shared<BridgeMonitor>(engine->mailbox);
  engine_ = engine;
  pauseRequested_ = false;
  runDir_.clear();
  setState(RunState::Starting);
  thread_ = QThread::create([engine, options] { runOnEngineThread(engine, options); });
  thread_->setObjectName(QStringLiteral("engine"));
  thread_->start();
  return true;
}

void RunController::stop(bool saveFinalCheckpoint) {
  if (!engine_ || !isActive()) return;
  EngineRun& engine = *engine_;
  std::lock_guard<std::mutex> lock(engine.mutex);
  if (!engine.trainer) {
    engine.stopBeforeStart = true;
  } else {
    if (saveFinalCheckpoint && !engine.modelSaver) {
      Trainer* trainer = engine.trainer;
      auto shared = engine_;
      trainer->post([shared, trainer] { saveNow(*shared, *trainer, /*manual=*/false); });
    }
    engine.trainer->requestStop();
  }
  setState(RunState::Stopping);
}

void RunController::setPaused(bool paused) {
  if (!engine_ || !isActive() || state_ == RunState::Stopping) return;
  pauseRequested_ = paused;
  {
    std::lock_guard<std::mutex> lock(engine_->mutex);
    engine_->pauseBeforeStart = paused;
    if (engine_->trainer) {
      // Runs at the step boundary where the loop pauses (commands run before the wait).
      std::shared_ptr<BridgeMonitor> monitor = engine_->monitor;
      if (paused) engine_->trainer->post([monitor] { monitor->publishNow(); });
      engine_->trainer->setPaused(paused);
    }
  }
  if (state_ == RunState::Running || state_ == RunState::Paused) {
    setState(paused ? RunState::Paused : RunState::Running);
  }
}

void RunController::saveCheckpointNow() {
  if (!engine_ || !isActive()) return;
  std::lock_guard<std::mutex> lock(engine_->mutex);
  if (!engine_->trainer) return;
  Trainer* trainer = engine_->trainer;
  auto shared = engine_;
  trainer->post([shared, trainer] { saveNow(*shared, *trainer, /*manual=*/true); });
}

QString RunController::liveValueProblem(const QString& name, const QString& text, double* value) {
  bool ok = false;
  const double number = QLocale::c().toDouble(text.trimmed(), &ok);
  if (!ok) return QString("\"%1\" is not a number").arg(text.trimmed());
  const std::string problem = live::valueProblem(name.toStdString(), number);
  if (!problem.empty()) return QString::fromStdString(problem);
  if (value != nullptr) *value = number;
  return QString();
}

void RunController::setLearningRate(double value) {
  if (!engine_ || !isActive()) return;
  std::lock_guard<std::mutex> lock(engine_->mutex);
  if (!engine_->trainer) return;
  Trainer* trainer = engine_->trainer;
  const bool scheduled = engine_->scheduleEnabled;
  trainer->post([trainer, value, scheduled] {
    try {
      live::setHyperParam(*trainer, names::kLearningRate, value, "the window", scheduled);
    } catch (const std::exception& e) {
      TB_LOG(Warning) << "the learning rate was not set: " << e.what();
    }
  });
}

bool RunController::waitForEnd(int timeoutMs) {
  if (thread_ && !thread_->wait(QDeadlineTimer(timeoutMs))) return false;
  drain();
  return true;
}

QEvent::Type RunController::wakeEventType() {
  static const auto type = static_cast<QEvent::Type>(QEvent::registerEventType());
  return type;
}

bool RunController::event(QEvent* event) {
  if (event->type() != wakeEventType()) return QObject::event(event);
  scheduleDrain();
  return true;
}

void RunController::scheduleDrain() {
  if (!drainTimer_.isActive()) drainTimer_.start(kDrainMs);
}

void RunController::drain() {
  drainTimer_.stop();
  if (!engine_) return;
  const auto engine = engine_;  // a slot below may start another run
  std::optional<RunProgress> latest;
  std::deque<RunEvent> events = engine->mailbox->take(&latest);
  if (latest) emit progress(*latest);
  for (RunEvent& event : events) {
    switch (event.kind) {
      case RunEvent::Kind::Started:
        runDir_ = event.text;
        emit runStarted(event.text, event.stepsPerEpoch, event.maxEpoch, event.samplesPerStep);
        if (state_ == RunState::Starting) {
          setState(pauseRequested_ ? RunState::Paused : RunState::Running);
        }
        break;
      case RunEvent::Kind::Metrics:
        emit metrics(event.samples);
        break;
      case RunEvent::Kind::Log:
        emit logLines(event.lines);
        break;
      case RunEvent::Kind::Image:
        emit imageReceived(event.image);
        break;
      case RunEvent::Kind::CheckpointSaved:
        emit checkpointSaved(event.text);
        break;
      case RunEvent::Kind::Finished:
        emit runFinished(event.stoppedEarly);
        setState(event.stoppedEarly ? RunState::Stopped : RunState::Finished);
        break;
      case RunEvent::Kind::Failed:
        emit runFailed(event.text);
        setState(RunState::Failed);
        break;
    }
  }
}

void RunController::setState(RunState state) {
  if (state_ == state) return;
  state_ = state;
  emit stateChanged(state);
}

}  // namespace tbench::bridge
