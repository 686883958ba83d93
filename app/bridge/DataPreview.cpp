// bridge::previewData: the first samples of a project's training source, read by the engine as
// a run reads them, in Qt types for the window's data preview.

#include <torch/torch.h>

#include <QFileInfo>
#include <nlohmann/json.hpp>

#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/ToQt.h"
#include "engine/core/Check.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"

namespace tbench::bridge {

namespace {

/// `image` [C, H, W] float as uint8 rows (HWC), scaled from its own minimum and maximum.
QByteArray pixelsOf(const torch::Tensor& image) {
  const torch::Tensor x = image.detach().to(torch::kFloat32);
  const float lo = x.min().item<float>();
  const float hi = x.max().item<float>();
  const float scale = hi > lo ? 255.0f / (hi - lo) : 0.0f;
  const torch::Tensor bytes =
      ((x - lo) * scale).round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  return QByteArray(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()),
                    static_cast<qsizetype>(bytes.numel()));
}

QString labelOf(const torch::Tensor& label, const std::vector<std::string>& classNames) {
  if (label.scalar_type() == torch::kInt64 && label.numel() == 1) {
    const int64_t k = label.item<int64_t>();
    if (k >= 0 && k < static_cast<int64_t>(classNames.size())) return q(classNames[k]);
    return QString::number(k);
  }
  QStringList values;
  const torch::Tensor flat = label.flatten().to(torch::kFloat64);
  for (int64_t i = 0; i < flat.numel(); ++i)
    values << QString::number(flat[i].item<double>(), 'g', 4);
  return values.join(", ");
}

}  // namespace

DataPreviewView previewData(const QString& projectText, const QString& projectPath, int count) {
  return readView<DataPreviewView>([&](DataPreviewView& view) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(projectText.toStdString());
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(str("the project is not valid JSON: ", e.what()));
    }
    const bool fromFile = !projectPath.isEmpty() && QFileInfo(projectPath).isFile();
    const Project project =
        projectFromJson(doc, fromFile ? projectPath.toStdString() : std::string("project"));
    OpenRequest request;
    request.shuffle = project.data.shuffle;
    request.seed = project.seed;
    const OpenedSource source = openDataSource(project.data.train, request, project.baseDir);
    const ImageShape& s = source.image;
    const int64_t samples = source.flow->size().value_or(0);
    view.summary = q(str(samples, " samples of ", s.channels, "x", s.height, "x", s.width, ", ",
                         source.numClasses > 0 ? str(source.numClasses, " classes")
                                               : str(source.numTargets, " target(s)"),
                         " (data.train: ", project.data.train.type, ")"));
    std::vector<std::string> names = source.facts.classNames;
    for (int64_t k = static_cast<int64_t>(names.size()); k < source.numClasses; ++k) {
      names.push_back(std::to_string(k));
    }
    for (const std::string& name : names) view.classNames << q(name);
    for (int64_t c : source.facts.classCounts) view.classCounts << c;
    for (const std::string& name : source.featureNames) view.columns << q(name);

    const bool table = s.channels == 1 && s.height == 1;
    if (!table) {
      view.channels = static_cast<int>(s.channels);
      view.height = static_cast<int>(s.height);
      view.width = static_cast<int>(s.width);
    }
    source.flow->resetState();
    DataPass pass = source.flow->pass();
    Datapoint point;
    torch::NoGradGuard noGrad;
    while (view.labels.size() < count && pass.next(point)) {
      if (table) {
        QList<double> row;
        const torch::Tensor features = point[0].flatten().to(torch::kFloat64);
        for (int64_t i = 0; i < features.numel(); ++i) row << features[i].item<double>();
        view.rows << row;
      } else {
        view.pixels << pixelsOf(point[0]);
      }
      view.labels << labelOf(point[1], names);
    }
  });
}

}  // namespace tbench::bridge
