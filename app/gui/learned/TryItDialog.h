#pragma once
// TryItDialog (Run ▸ Try It…, a run's "Try it…"): a checkpoint's classifier on one input, as
// NVIDIA DIGITS' "Classify One". Choose the checkpoint (default: the latest of the current or
// newest run), the input (an image file, sample N of the project's validation or training data
// with its true class, or row N of a CSV table) and N; Classify shows the input as the model
// saw it and the top-N classes with their probabilities as bars. The engine runs off the GUI
// thread through a bridge::TryItRunner (bridge::tryIt in the window, a stub in tests) on Qt's
// global thread pool; closing the dialog never waits for it. GUI thread.

#include <QDialog>

#include "app/bridge/LearnedTypes.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tbench::gui {

class TryItDialog : public QDialog {
  Q_OBJECT

 public:
  TryItDialog(bridge::TryItRunner runner, const QString& checkpoint, QWidget* parent = nullptr);
  ~TryItDialog() override;

  /// The query the controls describe now.
  bridge::TryItQuery query() const;
  /// Sets the input to sample `index` of the project's `split` ("validation", "train").
  void setDatasetSample(const QString& split, qint64 index);
  /// Starts classifying query() (ignored while a query runs).
  void classify();
  /// The last answer shown.
  const bridge::TryItView& result() const { return result_; }
  bool busy() const { return busy_; }

 signals:
  /// An answer (or its error) is shown.
  void resultShown();

 private:
  void showAnswer(const bridge::TryItView& view);
  void updateInputControls();
  void browseCheckpoint();
  void browseInput();

  bridge::TryItRunner runner_;
  bool busy_ = false;
  bridge::TryItView result_;
  QLineEdit* checkpoint_ = nullptr;
  QComboBox* kind_ = nullptr;
  QLineEdit* path_ = nullptr;
  QPushButton* browsePath_ = nullptr;
  QComboBox* split_ = nullptr;
  QSpinBox* index_ = nullptr;
  QSpinBox* topN_ = nullptr;
  QPushButton* classify_ = nullptr;
  QLabel* image_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* classes_ = nullptr;
};

}  // namespace tbench::gui
