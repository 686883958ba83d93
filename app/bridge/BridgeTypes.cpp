#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryViews.h"

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
    case RunState::Stopped:
      return QStringLiteral("stopped");
    case RunState::Failed:
      return QStringLiteral("failed");
    case RunState::Unknown:
      break;
  }
  return QStringLiteral("unknown");
}

QString toString(TrialPhase phase) {
  switch (phase) {
    case TrialPhase::Pending:
      return QStringLiteral("pending");
    case TrialPhase::Running:
      return QStringLiteral("running");
    case TrialPhase::Finished:
      return QStringLiteral("finished");
    case TrialPhase::Failed:
      return QStringLiteral("failed");
    case TrialPhase::Pruned:
      return QStringLiteral("pruned");
    case TrialPhase::Cancelled:
      return QStringLiteral("cancelled");
  }
  return QStringLiteral("unknown");
}

void registerBridgeTypes() {
  qRegisterMetaType<MetricSample>();
  qRegisterMetaType<MetricSamples>();
  qRegisterMetaType<ImageSample>();
  qRegisterMetaType<RunState>();
  qRegisterMetaType<RunProgress>();
}

QStringList ComponentKindView::typeNames() const {
  QStringList names;
  for (const ComponentTypeView& t : types) names.append(t.name);
  return names;
}

const ComponentTypeView* ComponentKindView::type(const QString& name) const {
  for (const ComponentTypeView& t : types) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

QList<KeyView> ComponentKindView::keysOf(const QString& typeName) const {
  QList<KeyView> keys = leadingKeys;
  if (const ComponentTypeView* t = type(typeName)) keys += t->keys;
  keys += trailingKeys;
  return keys;
}

QStringList ComponentKindView::allKeys() const {
  QStringList names;
  if (!typeKey.isEmpty()) names.append(typeKey);
  auto add = [&](const QList<KeyView>& keys) {
    for (const KeyView& k : keys) {
      if (!names.contains(k.name)) names.append(k.name);
    }
  };
  add(leadingKeys);
  for (const ComponentTypeView& t : types) add(t.keys);
  add(trailingKeys);
  return names;
}

const ComponentKindView* ComponentCatalog::kind(const QString& name) const {
  for (const ComponentKindView& k : kinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const ComponentSlotView* ComponentCatalog::slotAt(const QString& path) const {
  QString pattern = path.startsWith(QLatin1String("$.")) ? path.mid(2) : path;
  const qsizetype open = pattern.indexOf(QLatin1Char('['));
  const qsizetype close = pattern.indexOf(QLatin1Char(']'), open);
  if (open >= 0 && close > open) pattern.remove(open + 1, close - open - 1);
  for (const ComponentSlotView& slot : slotList) {
    if (slot.path == pattern) return &slot;
  }
  return nullptr;
}

const ObjectView* ComponentCatalog::objectAt(const QString& path) const {
  const QString pattern = path == QLatin1String("$")             ? QString()
                          : path.startsWith(QLatin1String("$.")) ? path.mid(2)
                                                                 : path;
  for (const ObjectView& object : objects) {
    if (object.path == pattern) return &object;
  }
  return nullptr;
}

}  // namespace tbench::bridge
