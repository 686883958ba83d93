#include "app/bridge/BridgeTypes.h"

namespace tbench::bridge {

QString toString(RunState state) {
  switch (state) {
    case RunState::Idle:
      return QStringLiteral("idle");
    case RunState::Starting:
      return QStringLiteral("starting");
    case RunState::Running:
      return QStringLiteral("running");
    case RunState::Paused:
      return QStringLiteral("paused");
    case RunState::Stopping:
      return QStringLiteral("stopping");
    case RunState::Finished:
      return QStringLiteral("finished");
    case RunState::Failed:
      return QStringLiteral("failed");
  }
  return QStringLiteral("unknown");
}

void registerBridgeTypes() {
  qRegisterMetaType<MetricSample>();
  qRegisterMetaType<MetricSamples>();
  qRegisterMetaType<RunState>();
  qRegisterMetaType<RunProgress>();
}

}  // namespace tbench::bridge
