#include "app/gui/editor/ProjectSchema.h"

#include <QHash>
#include <QRegularExpression>

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

const VariantKeys& modelTypes() {
  static const VariantKeys keys{
      QStringLiteral("type"),
      QStringLiteral("convnet"),
      {{"mlp", {"hidden"}},
       {"convnet", {"conv1_channels", "conv2_channels", "kernel_size", "fc_width", "batch_norm"}}}};
  return keys;
}

const VariantKeys& sourceTypes() {
  static const VariantKeys keys{
      QStringLiteral("type"),
      QStringLiteral("fashion-mnist"),
      {{"fashion-mnist", {"split", "dir"}},
       {"idx", {"images", "labels"}},
       {"synthetic",
        {"num_samples", "image_size", "num_classes", "noise", "seed", "sample_seed"}}}};
  return keys;
}

const VariantKeys& optimizerTypes() {
  static const VariantKeys keys{QStringLiteral("type"),
                                QStringLiteral("adam"),
                                {{"sgd", {"momentum", "nesterov"}},
                                 {"adam", {"beta1", "beta2", "eps"}},
                                 {"adamw", {"beta1", "beta2", "eps"}},
                                 {"rmsprop", {"momentum", "eps"}}}};
  return keys;
}

const VariantKeys& callbackTypes() {
  static const VariantKeys keys{
      QStringLiteral("type"),
      QString(),
      {{"progress_bar", {"scalars"}},
       {"estimated_time_left", {}},
       {"throughput", {}},
       {"model_saver", {"max_to_keep", "keep_every_hours", "every_k_epochs"}},
       {"min_saver", {"stat"}},
       {"max_saver", {"stat"}},
       {"inference", {"every_k_epochs"}},
       {"check_numerics", {"every_k_steps"}},
       {"lr_on_plateau", {"stat", "factor", "patience", "threshold", "mode", "min_value"}},
       {"gpu_tracker", {}}}};
  return keys;
}

QStringList keyOrder(const QString& pattern) {
  static const QStringList source = {"type",   "split",       "dir",         "images",
                                     "labels", "num_samples", "image_size",  "num_classes",
                                     "noise",  "seed",        "sample_seed", "limit"};
  static const QHash<QString, QStringList> orders = {
      {"",
       {"format", "name", "description", "model", "data", "optimizer", "schedule",
        "steps_per_epoch", "max_epoch", "starting_epoch", "callbacks", "monitors", "init",
        "trainer", "seed", "num_threads", "run_root"}},
      {"model",
       {"type", "hidden", "conv1_channels", "conv2_channels", "kernel_size", "fc_width",
        "batch_norm", "dropout"}},
      {"data", {"train", "validation", "batch_size", "shuffle", "remainder"}},
      {"data.train", source},
      {"data.validation", source},
      {"optimizer",
       {"type", "learning_rate", "momentum", "nesterov", "weight_decay", "beta1", "beta2", "eps",
        "clip_global_norm", "clip_value", "report_grad_norm"}},
      {"schedule", {"learning_rate"}},
      {"schedule.learning_rate", {"unit", "interpolation", "points"}},
      {"callbacks[]",
       {"type", "scalars", "max_to_keep", "keep_every_hours", "every_k_epochs", "stat",
        "every_k_steps", "factor", "patience", "threshold", "mode", "min_value"}},
      {"monitors", {"json", "scalar_printer", "tensorboard"}},
      {"init", {"checkpoint", "ignore"}},
      {"trainer", {"strategy", "devices", "queue_size", "ps_device", "average", "check_replicas"}}};
  return orders.value(pattern);
}

QString help(const QString& path) {
  // Sources and callbacks share their help whatever their place in the document.
  static const QRegularExpression sourcePrefix(QStringLiteral("^data\\.(train|validation)\\."));
  static const QRegularExpression callbackPrefix(QStringLiteral("^callbacks\\[\\d*\\]\\."));
  QString key = withoutRoot(path);
  key.replace(sourcePrefix, QStringLiteral("source."));
  key.replace(callbackPrefix, QStringLiteral("callback."));
  static const QHash<QString, QString> lines = {
      {"format", "Project file format; this Towerbench reads format 1"},
      {"name", "Letters, digits, '.', '_' and '-'; runs go to <run_root>/<name>/"},
      {"description", "Free text, shown in the run history"},
      {"seed", "Random seed of the run (>= 0); default 42"},
      {"num_threads", "Intra-op threads (>= 0); 0 = all cores"},
      {"run_root", "Not empty; runs go to <run_root>/<name>/<run-id>/; default train_log"},
      {"model.type", "mlp or convnet (default convnet)"},
      {"model.hidden", "Widths of the hidden layers, e.g. \"256, 128\" (empty: none)"},
      {"model.conv1_channels", "Channels of the first convolution (>= 1); default 32"},
      {"model.conv2_channels", "Channels of the second convolution (>= 1); default 64"},
      {"model.kernel_size", "Convolution kernel size, odd (>= 1); default 5"},
      {"model.fc_width", "Width of the fully connected layer (>= 1); default 1024"},
      {"model.batch_norm",
       "convnet: BatchNorm after each convolution; its running statistics follow tower 0"},
      {"model.dropout", "Dropout before the last layer, in [0, 1); default 0"},
      {"data.validation", "Validate on a second data source; off: no validation"},
      {"data.batch_size", "Samples per batch and tower (>= 1); default 128"},
      {"data.shuffle", "Shuffle the training set every epoch; default on"},
      {"data.remainder", "Keep the last, smaller training batch of a pass; default off"},
      {"source.type", "fashion-mnist, idx or synthetic (default fashion-mnist)"},
      {"source.split", "train or test (default train; test for validation)"},
      {"source.dir",
       "Directory of the Fashion-MNIST files; empty: "
       "/usr/share/datasets/fashion-mnist"},
      {"source.images", "Path of an IDX image file, plain or .gz (required)"},
      {"source.labels", "Path of an IDX label file, plain or .gz (required)"},
      {"source.num_samples", "Number of samples (>= 1); default 2048"},
      {"source.image_size", "Side of the square images (>= 4); default 8"},
      {"source.num_classes", "Number of classes (>= 2); default 4"},
      {"source.noise", "Noise added to the class patterns (>= 0); default 0.5"},
      {"source.seed", "Seed of the class patterns (>= 0); default 1"},
      {"source.sample_seed",
       "0: samples follow the patterns' generator; else their own "
       "generator (default 0)"},
      {"source.limit", "Use only the first `limit` samples (>= 0); 0 = all"},
      {"optimizer.type", "sgd, adam, adamw or rmsprop (default adam)"},
      {"optimizer.learning_rate", "Learning rate (> 0), e.g. 1e-3; default 0.001"},
      {"optimizer.weight_decay", "Weight decay (>= 0); default 0"},
      {"optimizer.momentum", "sgd, rmsprop: momentum (>= 0); default 0"},
      {"optimizer.nesterov", "sgd: Nesterov momentum; requires momentum > 0"},
      {"optimizer.beta1", "adam, adamw: in [0, 1); default 0.9"},
      {"optimizer.beta2", "adam, adamw: in [0, 1); default 0.999"},
      {"optimizer.eps", "adam, adamw, rmsprop: > 0; default 1e-8"},
      {"optimizer.clip_global_norm",
       "Scale the gradients so that their global L2 norm is at most this (>= 0); 0 = off"},
      {"optimizer.clip_value", "Clamp every gradient element to [-v, v] (>= 0); 0 = off"},
      {"optimizer.report_grad_norm",
       "Put grad_norm (global gradient L2 norm) every step; costs ~4% of a CPU MLP step"},
      {"schedule", "Follow a learning-rate schedule instead of a constant rate"},
      {"schedule.learning_rate.unit", "Whether points are at epochs or global steps"},
      {"schedule.learning_rate.interpolation",
       "piecewise: hold the last value; linear: interpolate between points"},
      {"schedule.learning_rate.points",
       "[epoch or step (integer >= 0), learning rate (> 0)], "
       "strictly increasing; at least one"},
      {"steps_per_epoch", "Steps per epoch (>= 0); 0 = one pass over the training data"},
      {"max_epoch", "Train up to this epoch (>= 1); default 1"},
      {"starting_epoch", "First epoch to run (>= 1, <= max epoch); default 1"},
      {"callbacks", "Run in order; absent: progress_bar, estimated_time_left, throughput"},
      {"callback.scalars", "Scalars shown on the progress bar, e.g. \"cost, train_error\""},
      {"callback.max_to_keep", "How many of the newest checkpoints to keep (>= 1); default 10"},
      {"callback.keep_every_hours",
       "Also keep one checkpoint per this many hours for good (>= 0); default 0.5"},
      {"callback.every_k_epochs", "Run every k epochs (>= 1); default 1"},
      {"callback.stat", "The scalar to watch, e.g. validation_error (required)"},
      {"callback.every_k_steps", "Check the parameters every k steps (>= 0); 0 = every epoch"},
      {"callback.factor", "lr_on_plateau: the learning rate is multiplied by this; default 0.5"},
      {"callback.patience", "lr_on_plateau: epochs without improvement before a change; default 2"},
      {"callback.threshold", "lr_on_plateau: smaller improvements do not count; default 0"},
      {"callback.mode", "lr_on_plateau: min (lower is better, e.g. an error) or max (accuracy)"},
      {"callback.min_value", "lr_on_plateau: the learning rate never goes below this; default 0"},
      {"monitors.json", "Write stats.json in the run directory; default on"},
      {"monitors.scalar_printer", "Log the scalars at the end of every epoch; default on"},
      {"monitors.tensorboard", "Write TensorBoard event files; default on"},
      {"init.checkpoint",
       "Start from the weights of this checkpoint; empty: random "
       "initialisation"},
      {"init.ignore",
       "Parameter names (or prefixes ending in '.') not restored, comma "
       "separated"}};
  return lines.value(key);
}

QJsonArray defaultCallbacks() {
  return {QJsonObject{{"type", "progress_bar"}, {"scalars", QJsonArray{"cost"}}},
          QJsonObject{{"type", "estimated_time_left"}}, QJsonObject{{"type", "throughput"}}};
}

QJsonObject newCallback(const QString& type) {
  QJsonObject callback{{"type", type}};
  if (type == QLatin1String("progress_bar")) callback.insert("scalars", QJsonArray{"cost"});
  // A max saver gets no stat: no scalar the engine puts is better when larger, so the user
  // names one (the form marks the empty, required field).
  if (type == QLatin1String("min_saver")) callback.insert("stat", "validation_error");
  if (type == QLatin1String("lr_on_plateau")) callback.insert("stat", "validation_error");
  return callback;
}

QStringList knownScalars() {
  return {"cost", "train_error", "validation_cost", "validation_error", "learning_rate"};
}

}  // namespace schema
}  // namespace tbench::gui
