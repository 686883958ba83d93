#pragma once
// ImagePanel: the images of a run, one stream per image name ("samples", "validation_input"),
// as they arrive (tensorpack's DumpTensorAsImage grids, data previews). A combo box picks the
// stream; the view (ImageView) shows one image of it, enlarged with crisp pixels; the caption
// says which ("samples — epoch 3, step 1500"); back/forward buttons and a slider step through
// every image the stream received. The panel follows the newest image of the current stream
// until the user steps back; "Latest" (or stepping to the end) follows again.
//
// Every image of the run is kept (one per epoch is small) up to kMaxImagesPerStream per
// stream; past that the oldest go. clear() forgets everything (a new run);
// loadRunDirectory() shows the images a run wrote (<run dir>/images/<name>/
// epoch-<E>-step-<S>.png, engine/monitors/ImageFileWriter.h).
//
// Object names: "imageStreamCombo", "imageView", "imageCaption", "imageSlider",
// "imageBackButton", "imageForwardButton", "imageLatestButton", "imagePositionLabel".
// GUI thread only.

#include <QHash>
#include <QImage>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace tbench::ui {

class ImageView;

/// An image from 8-bit bytes, rows of width * channels bytes (1 grey, 3 RGB, 4 RGBA), copied;
/// a null QImage when the sizes do not match.
QImage imageFromPixels(const QByteArray& pixels, int width, int height, int channels);

class ImagePanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxImagesPerStream = 1000;

  explicit ImagePanel(QWidget* parent = nullptr);

  /// Adds an image to stream `name` (created on its first image; the first stream becomes the
  /// current one). Shown at once if `name` is current and the panel follows the latest.
  void addImage(const QString& name, qint64 epoch, qint64 step, const QImage& image);
  /// Forgets every stream and image.
  void clear();
  /// Replaces what is shown by the PNGs under `runDir`/images/; returns how many were read.
  int loadRunDirectory(const QString& runDir);

  QStringList streamNames() const { return order_; }
  QString currentStream() const { return current_; }
  void setCurrentStream(const QString& name);
  /// Images of the current stream.
  int imageCount() const;
  /// The index of the shown image in the current stream; -1 when none.
  int currentIndex() const;
  /// Shows image `index` of the current stream (clamped); following resumes at the last one.
  void showImage(int index);
  void stepBack() { showImage(currentIndex() - 1); }
  void stepForward() { showImage(currentIndex() + 1); }
  void showLatest();
  bool followsLatest() const { return following_; }
  /// "samples — epoch 3, step 1500"; empty when nothing is shown.
  QString caption() const;
  /// The image shown (null when none).
  QImage currentImage() const;

 signals:
  /// The first image of a stream arrived (the window shows its dock then).
  void streamAdded(const QString& name);

 private:
  struct Entry {
    qint64 epoch = 0;
    qint64 step = 0;
    QImage image;
  };
  struct Stream {
    QVector<Entry> entries;
    int index = -1;  ///< the entry shown when this stream is current
  };

  void refresh();
  const Stream* stream() const;

  QHash<QString, Stream> streams_;
  QStringList order_;  // stream names by first arrival
  QString current_;
  bool following_ = true;
  bool updating_ = false;  // widget signals during refresh() are not the user

  QComboBox* combo_ = nullptr;
  ImageView* view_ = nullptr;
  QLabel* caption_ = nullptr;
  QSlider* slider_ = nullptr;
  QToolButton* back_ = nullptr;
  QToolButton* forward_ = nullptr;
  QToolButton* latest_ = nullptr;
  QLabel* position_ = nullptr;
};

}  // namespace tbench::ui
