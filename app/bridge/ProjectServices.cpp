// The project services: the engine's analysis, defaults and component registry in Qt types.
#include "app/bridge/ProjectServices.h"

#include <QJsonArray>
#include <QJsonObject>

#include <nlohmann/json.hpp>

#include "app/bridge/ToQt.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/ProjectStructure.h"
#include "engine/project/registry/ComponentFactories.h"

namespace tbench::bridge {
namespace {

/// Parses `text`, or returns the parse error as an issue at "$".
bool parse(const QString& text, nlohmann::json* doc, ProjectIssueViews* issues) {
  try {
    *doc = nlohmann::json::parse(text.toStdString());
    return true;
  } catch (const nlohmann::json::exception& e) {  // parse_error, or a number out of range
    if (issues) issues->append({QStringLiteral("$"), q(str("not valid JSON: ", e.what()))});
    return false;
  }
}

KeyView toView(const KeyDescription& k) {
  KeyView v;
  v.name = q(k.name);
  v.type = q(toString(k.type));
  v.fallback = toQt(k.defaultValue);
  v.label = q(k.labelText.empty() ? k.name : k.labelText);
  v.help = q(k.fullHelp());
  v.minimum = k.minimum;
  v.minimumInclusive = k.minimumInclusive;
  v.maximum = k.maximum;
  v.maximumInclusive = k.maximumInclusive;
  v.required = k.requiredKey;
  v.notEmpty = k.nonEmpty;
  v.choices = toQt(k.choiceList);
  v.zeroText = q(k.zeroText);
  v.fileFilter = q(k.fileFilter);
  v.createdIfMissing = k.madeWhenMissing;
  v.placeholder = q(k.placeholderText);
  v.suggestions = toQt(k.suggestionList);
  return v;
}

QList<KeyView> toViews(const std::vector<KeyDescription>& keys) {
  QList<KeyView> views;
  for (const auto& k : keys) views.append(toView(k));
  return views;
}

}  // namespace

ComponentCatalog componentCatalog() {
  const ComponentRegistry& registry = ComponentRegistry::global();
  ComponentCatalog catalog;
  for (const std::string& kindName : registry.kindNames()) {
    const ComponentKind& k = registry.kind(kindName);
    ComponentKindView kind;
    kind.name = q(k.name);
    kind.noun = q(k.noun);
    kind.typeKey = q(k.typeKey);
    kind.defaultType = q(k.defaultType);
    kind.leadingKeys = toViews(k.leadingKeys);
    kind.trailingKeys = toViews(k.trailingKeys);
    for (const ComponentType* t : registry.types(kindName)) {
      QJsonObject traits;
      for (const auto& [name, value] : t->traits) traits.insert(q(name), q(value));
      kind.types.append({q(t->name), q(t->summary), toViews(t->keys), toQt(t->starter).toObject(),
                         t->onByDefault, q(t->origin), traits});
    }
    catalog.kinds.append(kind);
  }
  for (const ComponentSlot& slot : componentSlots()) {
    catalog.slotList.append({q(slot.path), q(slot.kind), toQt(slot.defaultOverrides).toObject()});
  }
  for (const ObjectDescription& object : projectObjects()) {
    catalog.objects.append({q(object.path), q(object.title), toViews(object.keys)});
  }
  catalog.defaultCallbacks = toQt(defaultCallbacksJson()).toArray();
  catalog.knownScalars = toQt(knownScalars());
  return catalog;
}

ProjectServices makeProjectServices() {
  ProjectServices services;
  services.analyze = [](const QString& text) {
    const ProjectAnalysis a = analyzeProjectText(text.toStdString());
    ProjectSummaryView view;
    for (const ProjectIssue& issue : a.issues)
      view.issues.append({q(issue.path), q(issue.message)});
    view.name = q(a.name);
    view.runRoot = q(a.runRoot);
    view.strategy = q(a.strategy);
    view.batchSize = a.batchSize;
    view.towers = a.towers;
    view.batchesPerStep = a.batchesPerStep;
    view.processes = a.processes;
    view.manyProcesses = a.manyProcesses;
    view.samplesPerStep = a.samplesPerStep;
    view.stepsPerEpoch = a.stepsPerEpoch;
    view.maxEpoch = a.maxEpoch;
    view.startingLearningRate = a.startingLearningRate;
    for (const auto& [step, value] : a.learningRateCurve) {
      view.learningRateCurve << QPointF(static_cast<double>(step), value);
    }
    return view;
  };
  services.canonicalize = [](const QString& text, QString* error) -> QString {
    ProjectIssueViews issues;
    nlohmann::json doc;
    if (!parse(text, &doc, &issues)) {
      if (error) *error = issues.front().message;
      return {};
    }
    try {
      return q(projectToJson(projectFromJson(doc, "project")).dump(2) + "\n");
    } catch (const std::exception& e) {
      if (error) *error = q(e.what());
      return {};
    }
  };
  services.catalog = componentCatalog();
  return services;
}

}  // namespace tbench::bridge
