#include "app/gui/editor/ProjectSchema.h"

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

#include <QHash>
#include <memory>

#include "app/gui/editor/JsonPath.h"

namespace tbench::gui {

QStringList VariantKeys::types() const {
  QStringList names;
  for (const auto& entry : keysByType) names.append(entry.first);
  return names;
}

QStringList VariantKeys::keysOf(const QString& type) const {
  for (const auto& entry : keysByType) {
    if (entry.first == type) return entry.second;
  }
  return {};
}

QStringList VariantKeys::allKeys() const {
  QStringList keys;
  for (const auto& entry : keysByType) {
    for (const QString& key : entry.second) {
      if (!keys.contains(key)) keys.append(key);
    }
  }
  return keys;
}

QStringList VariantKeys::foreignKeys(const QString& type) const {
  const QStringList own = keysOf(type);
  QStringList foreign;
  for (const QString& key : allKeys()) {
    if (!own.contains(key)) foreign.append(key);
  }
  return foreign;
}

namespace schema {

namespace {

struct State {
  bridge::ComponentCatalog catalog;
  QHash<QString, std::shared_ptr<VariantKeys>> variants;
};

State& state() {
  static State s;
  return s;
}

const bridge::KeyView* findKey(const QList<bridge::KeyView>& keys, const QString& name) {
  for (const bridge::KeyView& k : keys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

/// Splits "data.train.noise" into the object path "data.train" and the key "noise".
QPair<QString, QString> splitLast(const QString& path) {
  const QString bare = withoutRoot(path);
  const qsizetype dot = bare.lastIndexOf(QLatin1Char('.'));
  if (dot < 0) return {QString(), bare};
  return {bare.left(dot), bare.mid(dot + 1)};
}

}  // namespace

VariantKeys variantFrom(const bridge::ComponentCatalog& catalog, const QString& kindName) {
  VariantKeys variant;
  if (const bridge::ComponentKindView* kind = catalog.kind(kindName)) {
    variant.typeKey = kind->typeKey;
    variant.defaultType = kind->defaultType;
    for (const bridge::ComponentTypeView& type : kind->types) {
      QStringList keys;
      for (const bridge::KeyView& k : type.keys) keys.append(k.name);
      variant.keysByType.append({type.name, keys});
    }
  }
  return variant;
}

void setCatalog(const bridge::ComponentCatalog& catalog) {
  state().catalog = catalog;
  // Updated in place: the sections of a form built earlier keep pointers to them.
  for (auto it = state().variants.begin(); it != state().variants.end(); ++it) {
    *it.value() = variantFrom(catalog, it.key());
  }
}

const bridge::ComponentCatalog& catalog() { return state().catalog; }

const VariantKeys& variantOf(const QString& kindName) {
  std::shared_ptr<VariantKeys>& variant = state().variants[kindName];
  if (!variant) variant = std::make_shared<VariantKeys>(variantFrom(catalog(), kindName));
  return *variant;
}

const bridge::KeyView* keyAt(const QString& path, const QString& typeName) {
  const auto [objectPath, name] = splitLast(path);
  const bridge::ComponentCatalog& c = catalog();
  if (const bridge::ObjectView* object = c.objectAt(objectPath)) {
    return findKey(object->keys, name);
  }
  const bridge::ComponentSlotView* slot = c.slotAt(objectPath);
  const bridge::ComponentKindView* kind = slot != nullptr ? c.kind(slot->kind) : nullptr;
  if (kind == nullptr) return nullptr;
  if (const bridge::KeyView* k = findKey(kind->leadingKeys, name)) return k;
  if (const bridge::KeyView* k = findKey(kind->trailingKeys, name)) return k;
  if (const bridge::ComponentTypeView* type = kind->type(typeName)) {
    return findKey(type->keys, name);
  }
  for (const bridge::ComponentTypeView& type : kind->types) {
    if (const bridge::KeyView* k = findKey(type.keys, name)) return k;
  }
  return nullptr;
}

QStringList keyOrder(const QString& pattern) {
  const bridge::ComponentCatalog& c = catalog();
  auto keysOf = [&](const QString& path) {
    QStringList names;
    if (const bridge::ObjectView* object = c.objectAt(path)) {
      for (const bridge::KeyView& k : object->keys) names.append(k.name);
    }
    return names;
  };
  if (pattern.isEmpty()) {
    // The fixed keys, with the objects placed where a reader looks for them.
    QStringList order;
    for (const QString& key : keysOf(QString())) {
      order.append(key);
      if (key == QLatin1String("description"))
        order << "model"
              << "data"
              << "optimizer"
              << "schedule";
      if (key == QLatin1String("starting_epoch"))
        order << "callbacks"
              << "monitors"
              << "init"
              << "trainer"
              << "speed";
    }
    return order;
  }
  if (pattern == QLatin1String("data")) return QStringList{"train", "validation"} + keysOf(pattern);
  if (pattern == QLatin1String("schedule")) return {QString::fromLatin1(bridge::kLearningRate)};
  if (const bridge::ComponentSlotView* slot = c.slotAt(pattern)) {
    if (const bridge::ComponentKindView* kind = c.kind(slot->kind)) return kind->allKeys();
  }
  return keysOf(pattern);
}

QString help(const QString& path) {
  const QString bare = withoutRoot(path);
  // The form's own controls for optional objects.
  if (bare == QLatin1String("data.validation")) {
    return QObject::tr("Validate on a second data source; off: no validation");
  }
  if (bare == QLatin1String("schedule")) {
    return QObject::tr("Follow a learning-rate schedule instead of a constant rate");
  }
  if (bare == QLatin1String("callbacks")) {
    QStringList names;
    for (const QJsonValue& callback : defaultCallbacks()) {
      names.append(callback.toObject().value("type").toString());
    }
    return QObject::tr("Run in order; absent: %1").arg(names.join(QStringLiteral(", ")));
  }
  const auto [objectPath, name] = splitLast(bare);
  if (const bridge::ComponentSlotView* slot = catalog().slotAt(objectPath)) {
    const bridge::ComponentKindView* kind = catalog().kind(slot->kind);
    if (kind != nullptr && name == kind->typeKey) {
      QStringList lines;
      for (const bridge::ComponentTypeView& type : kind->types) {
        lines.append(type.name + QStringLiteral(": ") + type.summary);
      }
      return lines.join(QLatin1Char('\n')) +
             (kind->defaultType.isEmpty() ? QString()
                                          : QObject::tr("\n(default %1)").arg(kind->defaultType));
    }
  }
  const bridge::KeyView* key = keyAt(bare);
  return key != nullptr ? key->help : QString();
}

QJsonArray defaultCallbacks() { return catalog().defaultCallbacks; }

QJsonObject newCallback(const QString& type) {
  QJsonObject callback{{"type", type}};
  if (const bridge::ComponentKindView* kind = catalog().kind(QStringLiteral("callback"))) {
    if (const bridge::ComponentTypeView* t = kind->type(type)) {
      for (auto it = t->starter.begin(); it != t->starter.end(); ++it) {
        callback.insert(it.key(), it.value());
      }
    }
  }
  return callback;
}

QStringList knownScalars() { return catalog().knownScalars; }

}  // namespace schema
}  // namespace tbench::gui
