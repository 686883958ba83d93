// bridge::tryIt: the engine's tryCheckpoint in Qt types.

#include "app/bridge/TryIt.h"

#include <torch/torch.h>

#include "app/bridge/ToQt.h"
#include "engine/predict/TryIt.h"

namespace tbench::bridge {

TryItView tryIt(const TryItQuery& query) {
  return readView<TryItView>([&](TryItView& view) {
    TryItInput input;
    input.kind = query.kind == TryItQuery::Kind::ImageFile       ? TryItInput::Kind::ImageFile
                 : query.kind == TryItQuery::Kind::DatasetSample ? TryItInput::Kind::DatasetSample
                                                                 : TryItInput::Kind::CsvRow;
    input.path = query.path.toStdString();
    input.split = query.split.toStdString();
    input.index = query.index;
    const TryItResult result = tryCheckpoint(query.checkpoint.toStdString(), input, query.topN);
    for (const auto& name : result.classNames) view.classNames << QString::fromStdString(name);
    for (double p : result.probabilities) view.probabilities << p;
    for (const TryItClass& c : result.top) {
      view.top.push_back(
          {static_cast<int>(c.index), QString::fromStdString(c.name), c.probability});
    }
    view.width = result.input.width;
    view.height = result.input.height;
    view.channels = result.input.channels;
    view.pixels = QByteArray(reinterpret_cast<const char*>(result.input.pixels.data()),
                             static_cast<qsizetype>(result.input.pixels.size()));
    for (double f : result.features) view.features << f;
    view.trueClass = static_cast<int>(result.trueClass);
    view.note = QString::fromStdString(result.note);
  });
}

}  // namespace tbench::bridge
