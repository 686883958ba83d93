#include "app/gui/editor/ProjectSections.h"

#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <limits>

#include "app/gui/editor/FormSection.h"

namespace tbench::gui {

namespace {
constexpr int kMax = std::numeric_limits<int>::max();
}

FormSection* makeGeneralSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("General"), QString(), markers, parent);
  section->addText(
      "name", QObject::tr("Name"), QString(),
      new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[A-Za-z0-9._-]*"))));
  section->addText("description", QObject::tr("Description"), QString());
  section->addSeed("seed", QObject::tr("Seed"), 42);
  QSpinBox* threads = section->addInteger("num_threads", QObject::tr("Threads"), 0, 4096, 0);
  threads->setSpecialValueText(QObject::tr("all cores"));
  section->addPath("run_root", QObject::tr("Run root"), FormSection::PathKind::Directory);
  section->setFallback("run_root", QStringLiteral("train_log"));
  return section;
}

FormSection* makeModelSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Model"), "model", markers, parent);
  section->addChoice("type", QObject::tr("Type"), schema::modelTypes().types(), "convnet");
  section->addIntegerList("hidden", QObject::tr("Hidden layers"), QJsonArray{256, 128});
  section->addInteger("conv1_channels", QObject::tr("Conv 1 channels"), 1, kMax, 32);
  section->addInteger("conv2_channels", QObject::tr("Conv 2 channels"), 1, kMax, 64);
  section->addInteger("kernel_size", QObject::tr("Kernel size"), 1, 99, 5)->setSingleStep(2);
  section->addInteger("fc_width", QObject::tr("FC width"), 1, kMax, 1024);
  section->addBoolean("batch_norm", QObject::tr("Batch normalization"), false);
  section->addNumber("dropout", QObject::tr("Dropout"), 0.0);
  section->setVariant(schema::modelTypes(), true);
  return section;
}

FormSection* makeSourceSection(const QString& title, const QString& base, IssueMarkers* markers,
                               QWidget* parent) {
  const QString idxFilter = QObject::tr("IDX files (*-ubyte *-ubyte.gz *.idx *.gz);;All files (*)");
  auto* section = new FormSection(title, base, markers, parent);
  section->addChoice("type", QObject::tr("Type"), schema::sourceTypes().types(), "fashion-mnist");
  section->addChoice("split", QObject::tr("Split"), {"train", "test"}, "train");
  section->addPath("dir", QObject::tr("Directory"), FormSection::PathKind::Directory)
      ->setPlaceholderText(QStringLiteral("/usr/share/datasets/fashion-mnist"));
  section->addPath("images", QObject::tr("Images"), FormSection::PathKind::File, idxFilter);
  section->addPath("labels", QObject::tr("Labels"), FormSection::PathKind::File, idxFilter);
  section->addInteger("num_samples", QObject::tr("Samples"), 1, kMax, 2048);
  section->addInteger("image_size", QObject::tr("Image size"), 4, 4096, 8);
  section->addInteger("num_classes", QObject::tr("Classes"), 2, kMax, 4);
  section->addNumber("noise", QObject::tr("Noise"), 0.5);
  section->addSeed("seed", QObject::tr("Pattern seed"), 1);
  section->addSeed("sample_seed", QObject::tr("Sample seed"), 0);
  section->addInteger("limit", QObject::tr("Limit"), 0, kMax, 0)
      ->setSpecialValueText(QObject::tr("all samples"));
  section->setVariant(schema::sourceTypes(), true);
  return section;
}

FormSection* makeOptimizerSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Optimizer"), "optimizer", markers, parent);
  section->addChoice("type", QObject::tr("Type"), schema::optimizerTypes().types(), "adam");
  section->addNumber("learning_rate", QObject::tr("Learning rate"), 1e-3);
  section->addNumber("momentum", QObject::tr("Momentum"), 0.0);
  section->addBoolean("nesterov", QObject::tr("Nesterov momentum"), false);
  section->addNumber("weight_decay", QObject::tr("Weight decay"), 0.0);
  section->addNumber("beta1", QObject::tr("Beta 1"), 0.9);
  section->addNumber("beta2", QObject::tr("Beta 2"), 0.999);
  section->addNumber("eps", QObject::tr("Epsilon"), 1e-8);
  section->addNumber("clip_global_norm", QObject::tr("Clip global norm"), 0.0);
  section->addNumber("clip_value", QObject::tr("Clip value"), 0.0);
  section->addBoolean("report_grad_norm", QObject::tr("Report gradient norm"), true);
  section->setVariant(schema::optimizerTypes(), false);
  return section;
}

FormSection* makeLengthSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Training length"), QString(), markers, parent);
  section->addInteger("max_epoch", QObject::tr("Max epoch"), 1, kMax, 1);
  section->addInteger("starting_epoch", QObject::tr("Starting epoch"), 1, kMax, 1);
  section->addInteger("steps_per_epoch", QObject::tr("Steps per epoch"), 0, kMax, 0)
      ->setSpecialValueText(QObject::tr("one pass"));
  section->addNote(QObject::tr("Steps per epoch: 0 = one pass over the training data."));
  return section;
}

FormSection* makeMonitorsSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Monitors"), "monitors", markers, parent);
  section->addBoolean("json", QObject::tr("Write stats.json"), true);
  section->addBoolean("scalar_printer", QObject::tr("Log the scalars every epoch"), true);
  section->addBoolean("tensorboard", QObject::tr("Write TensorBoard event files"), true);
  return section;
}

FormSection* makeInitSection(IssueMarkers* markers, QWidget* parent) {
  auto* section = new FormSection(QObject::tr("Initial weights"), "init", markers, parent);
  QLineEdit* checkpoint =
      section->addPath("checkpoint", QObject::tr("Checkpoint"), FormSection::PathKind::File,
                       QObject::tr("Checkpoints (*.pt);;All files (*)"));
  checkpoint->setPlaceholderText(QObject::tr("none: random initialisation"));
  QLineEdit* ignore = section->addStringList("ignore", QObject::tr("Do not restore"), {});
  ignore->setEnabled(false);
  // "init" needs a checkpoint: without one the object goes, and so does its ignore list.
  QObject::connect(checkpoint, &QLineEdit::textChanged, ignore,
                   [ignore](const QString& text) { ignore->setEnabled(!text.isEmpty()); });
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
