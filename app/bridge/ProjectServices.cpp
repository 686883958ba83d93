#include "app/bridge/ProjectServices.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/callbacks/HyperParamSetter.h"
#include "engine/checkpoint/WeightsExport.h"
#include "engine/comm/NcclCommunicator.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Environment.h"
#include "engine/project/ProjectJson.h"

namespace tbench::bridge {
namespace {

QString q(const std::string& text) { return QString::fromStdString(text); }

/// Samples in a data source without reading its images: the Fashion-MNIST split sizes, the
/// synthetic count, or the count in an IDX label file's header. 0 when unknown.
int64_t sampleCount(const DataSourceSpec& spec) {
  int64_t count = 0;
  if (spec.type == "fashion-mnist") {
    count = spec.split == "test" ? 10000 : 60000;
  } else if (spec.type == "synthetic") {
    count = spec.numSamples;
  } else if (spec.type == "idx" && spec.labels.size() > 3 &&
             spec.labels.compare(spec.labels.size() - 3, 3, ".gz") != 0) {
    std::ifstream in(spec.labels, std::ios::binary);
    unsigned char header[8] = {};
    if (in.read(reinterpret_cast<char*>(header), 8)) {
      count = (int64_t(header[4]) << 24) | (header[5] << 16) | (header[6] << 8) | header[7];
    }
  }
  if (spec.limit > 0 && (count == 0 || spec.limit < count)) count = spec.limit;
  return count;
}

int64_t stepsPerEpochOf(const Project& project) {
  if (project.stepsPerEpoch > 0) return project.stepsPerEpoch;
  const int64_t samples = sampleCount(project.data.train);
  const int64_t batch = std::max<int64_t>(1, project.data.batchSize);
  const int64_t steps = project.data.remainder ? (samples + batch - 1) / batch : samples / batch;
  return std::max<int64_t>(1, steps);
}

QVector<QPointF> learningRateCurveOf(const Project& project) {
  const int64_t spe = stepsPerEpochOf(project);
  const int64_t first = (project.startingEpoch - 1) * spe;
  const int64_t last = project.maxEpoch * spe;
  const double base = project.optimizer.learningRate;
  QVector<QPointF> curve;
  if (!project.schedule.enabled || project.schedule.points.empty()) {
    curve << QPointF(first, base) << QPointF(last, base);
    return curve;
  }
  const ScheduleSpec& s = project.schedule;
  const ScheduledHyperParamSetter schedule(
      "learning_rate", s.points,
      s.unit == "step" ? HyperParamSetter::Unit::Step : HyperParamSetter::Unit::Epoch,
      s.interpolation == "linear" ? ScheduledHyperParamSetter::Interpolation::Linear
                                  : ScheduledHyperParamSetter::Interpolation::Piecewise);
  // The value holds from one application to the next; before the first point the optimizer's
  // own rate applies.
  double current = base;
  auto valueAt = [&](int64_t position) {
    if (auto v = schedule.scheduledValue(position)) current = *v;
    return current;
  };
  if (s.unit == "epoch") {
    // A point (E, v) applies after epoch E: epoch e runs with the value at position e - 1.
    for (int64_t epoch = project.startingEpoch; epoch <= project.maxEpoch; ++epoch) {
      const double value = valueAt(epoch - 1);
      curve << QPointF((epoch - 1) * spe, value) << QPointF(epoch * spe, value);
    }
    return curve;
  }
  // Steps: every schedule point inside the run, plus enough samples to draw interpolation.
  std::vector<int64_t> positions;
  const int64_t samples = 256;
  for (int64_t i = 0; i <= samples; ++i) positions.push_back(first + (last - first) * i / samples);
  for (const auto& [position, value] : s.points) {
    if (position > first && position < last) {
      positions.push_back(position - 1);
      positions.push_back(position);
    }
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  for (int64_t position : positions) curve << QPointF(position, valueAt(position));
  return curve;
}

/// Parses `text`, or returns the parse error as an issue at "$".
bool parse(const QString& text, nlohmann::json* doc, ProjectIssueViews* issues) {
  try {
    *doc = nlohmann::json::parse(text.toStdString());
    return true;
  } catch (const nlohmann::json::parse_error& e) {
    if (issues) issues->append({QStringLiteral("$"), q(str("not valid JSON: ", e.what()))});
    return false;
  }
}

}  // namespace

ProjectServices makeProjectServices() {
  ProjectServices services;
  services.validate = [](const QString& text) {
    ProjectIssueViews issues;
    nlohmann::json doc;
    if (!parse(text, &doc, &issues)) return issues;
    for (const ProjectIssue& issue : validateProjectJson(doc)) {
      issues.append({q(issue.path), q(issue.message)});
    }
    return issues;
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
  services.learningRateCurve = [](const QString& text) -> QVector<QPointF> {
    nlohmann::json doc;
    if (!parse(text, &doc, nullptr)) return {};
    try {
      return learningRateCurveOf(projectFromJson(doc, "project"));
    } catch (const std::exception&) {
      return {};
    }
  };
  return services;
}

CheckpointExporter makeCheckpointExporter() {
  return
      [](const QString& checkpoint, const QString& format, const QString& out, QString* message) {
        try {
          exportWeights(checkpoint.toStdString(), format.toStdString(), out.toStdString());
          if (message)
            *message = QStringLiteral("wrote %1 (%2) from %3").arg(out, format, checkpoint);
          return true;
        } catch (const std::exception& e) {
          if (message) *message = q(e.what());
          return false;
        }
      };
}

DeviceEntries discoverDevices(QString* note) {
  DeviceEntries entries;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Device> devices = availableDevices();
  const std::vector<std::string> details = describeCudaDevices(devices);
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    DeviceEntry entry;
    entry.id = q(device.toString());
    if (!device.isCuda()) {
      entry.name = QStringLiteral("CPU (%1 cores)").arg(cores);
      entry.detail = QStringLiteral(
                         "%1 intra-op threads by default; \"cpu\" may be listed once "
                         "per tower")
                         .arg(cores);
    } else {
      entry.name = QStringLiteral("CUDA device %1").arg(device.index);
      entry.detail = q(details[i]);
    }
    entries.append(entry);
  }
  if (note) {
    note->clear();
    if (entries.size() == 1) {
      *note = torch::cuda::is_available()
                  ? QStringLiteral("No CUDA device found.")
                  : QStringLiteral(
                        "No CUDA device: this LibTorch was built without CUDA, or no "
                        "GPU is present. Towers run on the CPU. (%1; %2)")
                        .arg(q(ncclVersionText()), q(nvmlStatusText()));
    }
  }
  return entries;
}

QString engineVersionText() {
  return QStringLiteral("LibTorch %1 (%2)")
      .arg(QStringLiteral(TORCH_VERSION),
           torch::cuda::is_available() ? QStringLiteral("CUDA") : QStringLiteral("CPU"));
}

void prepareEngineProcess(char** argv) { prepareProcess(argv); }

}  // namespace tbench::bridge
