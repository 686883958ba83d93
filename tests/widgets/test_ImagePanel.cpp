// ImagePanel in a real window (offscreen platform): images of several streams arrive, the
// panel follows the newest until the user steps back, "Latest" follows again, the stream
// combo switches, clear() forgets, a run directory's PNGs load back, and the view enlarges
// with crisp (nearest-neighbour) pixels.

#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QTemporaryDir>
#include <QToolButton>

#include "tests/support/TestMain.h"
#include "widgets/ImagePanel.h"
#include "widgets/ImageView.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ImagePanel {

using namespace tbench::ui;

namespace {

/// A 2x2 grey image whose first pixel is `value`.
QImage tagged(int value) {
  QImage image(2, 2, QImage::Format_Grayscale8);
  image.fill(0);
  image.setPixel(0, 0, qRgb(value, value, value));
  return image;
}

int tagOf(const QImage& image) { return qGray(image.pixel(0, 0)); }

template <typename T>
T* child(QWidget& panel, const char* name) {
  T* widget = panel.findChild<T*>(name);
  if (!widget) qFatal("no child %s", name);
  return widget;
}

}  // namespace

class TestImagePanel : public QObject {
  Q_OBJECT

 private slots:
  void followsStepsBackAndReturnsToTheLatest() {
    ImagePanel panel;
    panel.resize(480, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy added(&panel, &ImagePanel::streamAdded);
    auto* caption = child<QLabel>(panel, "imageCaption");
    auto* back = child<QToolButton>(panel, "imageBackButton");
    auto* forward = child<QToolButton>(panel, "imageForwardButton");
    auto* latest = child<QToolButton>(panel, "imageLatestButton");
    auto* slider = child<QSlider>(panel, "imageSlider");
    auto* position = child<QLabel>(panel, "imagePositionLabel");
    QCOMPARE(panel.currentIndex(), -1);
    QVERIFY(panel.currentImage().isNull());
    QVERIFY(!back->isEnabled() && !forward->isEnabled() && !latest->isEnabled());

    for (int epoch = 1; epoch <= 3; ++epoch)
      panel.addImage("samples", epoch, 500 * epoch, tagged(epoch));
    QCOMPARE(added.size(), 1);
    QCOMPARE(added.front().front().toString(), QString("samples"));
    QCOMPARE(panel.imageCount(), 3);
    QCOMPARE(panel.currentIndex(), 2);
    QVERIFY(panel.followsLatest());
    QCOMPARE(tagOf(panel.currentImage()), 3);
    QCOMPARE(caption->text(), QString("samples — epoch 3, step 1500"));
    QCOMPARE(position->text(), QString("3 / 3"));
    QCOMPARE(slider->maximum(), 2);
    QCOMPARE(slider->value(), 2);
    QVERIFY(back->isEnabled() && !forward->isEnabled() && !latest->isEnabled());

    // The user steps back: the panel stays there while new images arrive.
    QTest::mouseClick(back, Qt::LeftButton);
    QCOMPARE(panel.currentIndex(), 1);
    QVERIFY(!panel.followsLatest());
    QCOMPARE(caption->text(), QString("samples — epoch 2, step 1000"));
    QVERIFY(forward->isEnabled() && latest->isEnabled());
    panel.addImage("samples", 4, 2000, tagged(4));
    QCOMPARE(panel.imageCount(), 4);
    QCOMPARE(tagOf(panel.currentImage()), 2);
    QCOMPARE(position->text(), QString("2 / 4"));
    QCOMPARE(slider->maximum(), 3);

    // The slider steps too; back at the start the back button is off.
    slider->setValue(0);
    QCOMPARE(tagOf(panel.currentImage()), 1);
    QVERIFY(!back->isEnabled());
    panel.stepBack();  // clamped
    QCOMPARE(panel.currentIndex(), 0);
    QTest::mouseClick(forward, Qt::LeftButton);
    QCOMPARE(tagOf(panel.currentImage()), 2);

    // "Latest" follows again: the next image shows at once.
    QTest::mouseClick(latest, Qt::LeftButton);
    QVERIFY(panel.followsLatest());
    QCOMPARE(tagOf(panel.currentImage()), 4);
    QVERIFY(!latest->isEnabled());
    panel.addImage("samples", 5, 2500, tagged(5));
    QCOMPARE(tagOf(panel.currentImage()), 5);
    QCOMPARE(caption->text(), QString("samples — epoch 5, step 2500"));

    // Stepping forward to the end follows too.
    panel.showImage(3);
    QVERIFY(!panel.followsLatest());
    panel.stepForward();
    QVERIFY(panel.followsLatest());
  }

  void switchesStreamsByName() {
    ImagePanel panel;
    panel.show();
    auto* combo = child<QComboBox>(panel, "imageStreamCombo");
    panel.addImage("samples", 1, 10, tagged(1));
    panel.addImage("validation_input", 1, 10, tagged(100));
    panel.addImage("samples", 2, 20, tagged(2));
    QCOMPARE(panel.streamNames(), QStringList({"samples", "validation_input"}));
    QCOMPARE(combo->count(), 2);
    QVERIFY(combo->isEnabled());
    QCOMPARE(panel.currentStream(), QString("samples"));  // the first stream stays current
    QCOMPARE(tagOf(panel.currentImage()), 2);

    combo->setCurrentIndex(1);
    QCOMPARE(panel.currentStream(), QString("validation_input"));
    QCOMPARE(panel.imageCount(), 1);
    QCOMPARE(tagOf(panel.currentImage()), 100);
    QCOMPARE(panel.caption(), QString("validation_input — epoch 1, step 10"));

    // Back to the first: it shows its newest image.
    panel.setCurrentStream("samples");
    QCOMPARE(combo->currentText(), QString("samples"));
    QCOMPARE(tagOf(panel.currentImage()), 2);
    panel.setCurrentStream("unknown");  // ignored
    QCOMPARE(panel.currentStream(), QString("samples"));
  }

  void clearForgetsEverything() {
    ImagePanel panel;
    panel.show();
    panel.addImage("a", 1, 1, tagged(1));
    panel.addImage("b", 1, 1, tagged(2));
    panel.stepBack();
    panel.clear();
    QVERIFY(panel.streamNames().isEmpty());
    QCOMPARE(panel.imageCount(), 0);
    QCOMPARE(panel.currentIndex(), -1);
    QVERIFY(panel.caption().isEmpty());
    QVERIFY(panel.followsLatest());
    QCOMPARE(child<QComboBox>(panel, "imageStreamCombo")->count(), 0);
    QVERIFY(child<ImageView>(panel, "imageView")->image().isNull());
    // A new run's first image starts a fresh stream list.
    panel.addImage("b", 1, 1, tagged(7));
    QCOMPARE(panel.currentStream(), QString("b"));
    QCOMPARE(tagOf(panel.currentImage()), 7);
  }

  void keepsAtMostTheNewestImagesOfAStream() {
    ImagePanel panel;
    for (int i = 0; i < ImagePanel::kMaxImagesPerStream + 5; ++i) {
      panel.addImage("s", i, i, tagged(i % 256));
    }
    QCOMPARE(panel.imageCount(), ImagePanel::kMaxImagesPerStream);
    panel.showImage(0);
    QVERIFY(panel.caption().endsWith("step 5"));
  }

  void loadsTheImagesARunWrote() {
    QTemporaryDir run;
    QVERIFY(QDir(run.path()).mkpath("images/samples"));
    QVERIFY(QDir(run.path()).mkpath("images/validation_input"));
    // Steps sort numerically, not as text (step 1000 after step 500).
    QVERIFY(tagged(2).save(run.filePath("images/samples/epoch-2-step-1000.png")));
    QVERIFY(tagged(1).save(run.filePath("images/samples/epoch-1-step-500.png")));
    QVERIFY(tagged(9).save(run.filePath("images/validation_input/epoch-1-step-500.png")));
    QFile(run.filePath("images/samples/notes.txt")).open(QIODevice::WriteOnly);
    ImagePanel panel;
    panel.addImage("stale", 1, 1, tagged(1));
    QCOMPARE(panel.loadRunDirectory(run.path()), 3);
    QCOMPARE(panel.streamNames(), QStringList({"samples", "validation_input"}));
    QCOMPARE(panel.imageCount(), 2);
    QCOMPARE(tagOf(panel.currentImage()), 2);
    panel.stepBack();
    QCOMPARE(panel.caption(), QString("samples — epoch 1, step 500"));
    QCOMPARE(panel.loadRunDirectory(run.filePath("missing")), 0);
    QVERIFY(panel.streamNames().isEmpty());
  }

  void convertsBytesAndEnlargesWithCrispPixels() {
    const QByteArray rgb("\x01\x02\x03\x04\x05\x06", 6);  // 2x1 RGB
    const QImage image = imageFromPixels(rgb, 2, 1, 3);
    QCOMPARE(image.size(), QSize(2, 1));
    QCOMPARE(image.pixel(1, 0), qRgb(4, 5, 6));
    QCOMPARE(imageFromPixels(QByteArray("\x07\x08", 2), 1, 2, 1).pixel(0, 1), qRgb(8, 8, 8));
    QCOMPARE(imageFromPixels(QByteArray(4, 'x'), 1, 1, 4).format(), QImage::Format_RGBA8888);
    QVERIFY(imageFromPixels(rgb, 3, 1, 3).isNull());
    QVERIFY(imageFromPixels(rgb, 3, 1, 2).isNull());

    // Whole-factor enlargement, centred; shrinking keeps the aspect ratio.
    QCOMPARE(ImageView::targetRect(QSize(28, 10), QSize(100, 100)), QRect(8, 35, 84, 30));
    QCOMPARE(ImageView::targetRect(QSize(200, 100), QSize(100, 100)), QRect(0, 25, 100, 50));

    // A 2x2 checkerboard drawn 40x40 is four solid squares, not a blur.
    QImage board(2, 2, QImage::Format_Grayscale8);
    board.setPixel(0, 0, qRgb(0, 0, 0));
    board.setPixel(1, 0, qRgb(255, 255, 255));
    board.setPixel(0, 1, qRgb(255, 255, 255));
    board.setPixel(1, 1, qRgb(0, 0, 0));
    ImageView view;
    view.resize(40, 40);
    view.setImage(board);
    const QImage shot = view.grab().toImage();
    QCOMPARE(qGray(shot.pixel(19, 19)), 0);
    QCOMPARE(qGray(shot.pixel(20, 19)), 255);
    QCOMPARE(qGray(shot.pixel(20, 20)), 0);
    QCOMPARE(qGray(shot.pixel(19, 20)), 255);
  }
};

}  // namespace test_ImagePanel

TB_TEST_MAIN(test_ImagePanel::TestImagePanel)
#include "test_ImagePanel.moc"
