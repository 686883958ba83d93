#pragma once
// DataPreviewDialog: what the model will see before the user presses Start. The first
// training samples as the engine produces them (after augmentation and normalisation) in a
// grid with their labels, or the first rows of a table, and the samples per class.
//
// The samples are read off the GUI thread (opening a source can read whole files); the dialog
// stays responsive and shows "Reading…" until they arrive. Refresh reads the editor's
// current document again.

#include <QDialog>
#include <QString>
#include <functional>
#include <thread>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

class QLabel;
class QScrollArea;
class QTableWidget;
class QPushButton;

namespace tbench::gui {

class DataPreviewDialog : public QDialog {
  Q_OBJECT
 public:
  /// `previewer` reads the samples (bridge::previewData in the window).
  explicit DataPreviewDialog(bridge::DataPreviewer previewer, QWidget* parent = nullptr);
  /// Waits for a read under way (it never outlives the dialog and its engine objects).
  ~DataPreviewDialog() override;

  /// Where the document comes from on Refresh: (text, path).
  void setSource(std::function<std::pair<QString, QString>()> source) {
    source_ = std::move(source);
  }
  /// Reads the source's document now (in the background).
  void refresh();
  /// Whether a read is under way.
  bool busy() const { return busy_; }
  /// The last preview shown.
  const bridge::DataPreviewView& preview() const { return preview_; }

  static constexpr int kSamples = 32;

 signals:
  /// A preview (or its error) is on screen.
  void shown();

 private:
  void display(const bridge::DataPreviewView& view);
  QWidget* imageGrid(const bridge::DataPreviewView& view) const;
  QWidget* rowTable(const bridge::DataPreviewView& view) const;
  void fillClassTable(const bridge::DataPreviewView& view);

  bridge::DataPreviewer previewer_;
  std::function<std::pair<QString, QString>()> source_;
  bridge::DataPreviewView preview_;
  bool busy_ = false;
  std::thread reader_;
  QLabel* summary_ = nullptr;
  QScrollArea* samples_ = nullptr;
  QTableWidget* classes_ = nullptr;
  QPushButton* refresh_ = nullptr;
};

}  // namespace tbench::gui
