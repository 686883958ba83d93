#include "app/gui/editor/ProjectSections.h"
#include "app/bridge/ProjectViews.h"

#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>

#include "app/gui/editor/FormSection.h"

namespace tbench::gui {

namespace {

/// The keys of the fixed object at `path` named in `names`, in that order.
QList<bridge::KeyView> objectKeys(const QString& path, const QStringList& names) {
  QList<bridge::KeyView> keys;
  if (const bridge::ObjectView* object = schema::catalog().objectAt(path)) {
    for (const QString& name : names) {
      for (const bridge::KeyView& k : object->keys) {
        if (k.name == name) keys.append(k);
      }
    }
  }
  return keys;
}

/// Every key of the fixed object at `path`.
QList<bridge::KeyView> objectKeys(const QString& path) {
  const bridge::ObjectView* object = schema::catalog().objectAt(path);
  return object != nullptr ? object->keys : QList<bridge::KeyView>();
}

}  // namespace

FormSection* makeComponentSection(const QString& title, const QString& slotPath,
                                  IssueMarkers* markers, QWidget* parent, bool typeChoice,
                                  bool hideForeign, const QString& namePrefix) {
  auto* section = new FormSection(title, slotPath, markers, parent, namePrefix);
  const bridge::ComponentCatalog& catalog = schema::catalog();
  const bridge::ComponentSlotView* slot = catalog.slotAt(slotPath);
  const bridge::ComponentKindView* kind = slot != nullptr ? catalog.kind(slot->kind) : nullptr;
  if (kind == nullptr) return section;  // an empty catalog: nothing to show
  if (typeChoice) {
    section->addChoice(kind->typeKey, QObject::tr("Type"), kind->typeNames(), kind->defaultType);
  }
  section->addKeys(kind->leadingKeys);
  for (const bridge::ComponentTypeView& type : kind->types) section->addKeys(type.keys);
  section->addKeys(kind->trailingKeys);
  for (auto it = slot->defaultOverrides.begin(); it != slot->defaultOverrides.end(); ++it) {
    section->setFallback(it.key(), it.value());
  }
  section->setComponentKind(kind->name, hideForeign);
  return section;
}

FormSection* makeGeneralSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("General"), QString(), markers, parent);
  section->addKeys(objectKeys(
      QString(), {"name", "description", "seed", "num_threads", "precision", "run_root"}));
  if (auto* name = section->findChild<QLineEdit*>(QStringLiteral("name"))) {
    name->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("[A-Za-z0-9._-]*")), name));
  }
  return section;
}

FormSection* makeModelSection(IssueMarkers* markers, QWidget* parent) {
  return makeComponentSection(QObject::tr("Model"), "model", markers, parent, true, true);
}

FormSection* makeSourceSection(const QString& title, const QString& base, IssueMarkers* markers,
                               QWidget* parent) {
  return makeComponentSection(title, base, markers, parent, true, true);
}

FormSection* makeOptimizerSection(IssueMarkers* markers, QWidget* parent) {
  return makeComponentSection(QObject::tr("Optimizer"), "optimizer", markers, parent, true, false);
}

FormSection* makeLengthSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Training length"), QString(), markers, parent);
  section->addKeys(objectKeys(QString(), {"max_epoch", "starting_epoch", "steps_per_epoch"}));
  return section;
}

FormSection* makeBatchingSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QString(), "data", markers, parent);
  section->addKeys(objectKeys("data"));
  return section;
}

FormSection* makeMonitorsSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Monitors"), "monitors", markers, parent);
  section->addKeys(objectKeys("monitors"));
  return section;
}

FormSection* makeSpeedSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Device speed"), "speed", markers, parent);
  section->addKeys(objectKeys("speed"));
  return section;
}

FormSection* makeInitSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Initial weights"), "init", markers, parent);
  section->addKeys(objectKeys("init"));
  auto* checkpoint = section->findChild<QLineEdit*>(QStringLiteral("init.checkpoint"));
  if (checkpoint == nullptr) return section;
  checkpoint->setPlaceholderText(QObject::tr("none: random initialisation"));
  // "init" needs weights: without them the object goes, and so do its other keys.
  for (const char* key : {"init.ignore", "init.rename", "init.strict"}) {
    auto* other = section->findChild<QWidget*>(QLatin1String(key));
    if (other == nullptr) continue;
    other->setEnabled(false);
    QObject::connect(checkpoint, &QLineEdit::textChanged, other,
                     [other](const QString& text) { other->setEnabled(!text.isEmpty()); });
  }
  section->setEditFilter([](const JsonEdits& edits) {
    for (const JsonEdit& edit : edits) {
      if (edit.path == QLatin1String("init.checkpoint") && edit.value.toString().isEmpty()) {
        return JsonEdits{removal("init")};
      }
    }
    return edits;
  });
  return section;
}

}  // namespace tbench::gui
