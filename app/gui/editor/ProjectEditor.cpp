#include "app/gui/editor/ProjectEditor.h"
#include "app/bridge/ProjectViews.h"

#include <QBoxLayout>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>

#include "app/gui/editor/CallbackListEditor.h"
#include "app/gui/editor/DataSection.h"
#include "app/gui/editor/FormSection.h"
#include "app/gui/editor/IssueMarkers.h"
#include "app/gui/editor/JsonText.h"
#include "app/gui/editor/JsonTextPage.h"
#include "app/gui/editor/ProjectSections.h"
#include "app/gui/editor/ScheduleEditor.h"
#include "widgets/Palette.h"

namespace tbench::gui {

namespace {
constexpr int kParseDelayMs = 300;
constexpr int kValidateDelayMs = 250;
}  // namespace

ProjectEditor::ProjectEditor(bridge::ProjectServices services, QWidget* parent)
    : QWidget(parent), services_(std::move(services)) {
  schema::setCatalog(services_.catalog);  // before the form: its fields come from it
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("tabs");
  formScroll_ = new QScrollArea(tabs_);
  formScroll_->setObjectName("form");
  formScroll_->setWidgetResizable(true);
  auto* page = new QWidget(formScroll_);
  buildForm(page);
  formScroll_->setWidget(page);
  tabs_->addTab(formScroll_, tr("Form"));
  jsonPage_ = new JsonTextPage(tabs_);
  tabs_->addTab(jsonPage_, tr("JSON"));
  layout->addWidget(tabs_);

  parseTimer_.setSingleShot(true);
  parseTimer_.setInterval(kParseDelayMs);
  connect(&parseTimer_, &QTimer::timeout, this, &ProjectEditor::parseText);
  validateTimer_.setSingleShot(true);
  validateTimer_.setInterval(kValidateDelayMs);
  connect(&validateTimer_, &QTimer::timeout, this, &ProjectEditor::validateNow);
  connect(jsonPage_, &JsonTextPage::textEdited, this, [this] { parseTimer_.start(); });
  // Leaving the JSON tab applies what was typed there before the form is edited.
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (!parseTimer_.isActive()) return;
    parseTimer_.stop();
    parseText();
  });

  jsonPage_->setText(toProjectText(root_));
  savedDocument_ = document();
  loadSections();
}

ProjectEditor::~ProjectEditor() = default;

void ProjectEditor::buildForm(QWidget* page) {
  auto* column = new QVBoxLayout(page);
  parseBanner_ = new QLabel(page);
  parseBanner_->setObjectName("form.parseError");
  parseBanner_->setWordWrap(true);
  parseBanner_->setStyleSheet(ui::Palette::errorText() + QStringLiteral(" font-weight: bold;"));
  parseBanner_->setTextFormat(Qt::RichText);
  parseBanner_->hide();
  column->addWidget(parseBanner_);
  connect(parseBanner_, &QLabel::linkActivated, this, [this] {
    tabs_->setCurrentIndex(1);
    jsonPage_->goToSyntaxError();
  });
  issuesTitle_ = new QLabel(tr("Problems without a field here (click one to go to it):"), page);
  issuesTitle_->setObjectName("issues.title");
  issuesTitle_->setStyleSheet(ui::Palette::errorText());
  column->addWidget(issuesTitle_);
  issueList_ = new QListWidget(page);
  issueList_->setObjectName("issues");
  issueList_->setStyleSheet(QStringLiteral("QListWidget { %1 }").arg(ui::Palette::errorText()));
  column->addWidget(issueList_);
  issuesTitle_->hide();
  issueList_->hide();
  for (auto signal : {&QListWidget::itemClicked, &QListWidget::itemActivated}) {
    connect(issueList_, signal, this,
            [this](QListWidgetItem* item) { goTo(item->data(Qt::UserRole).toString()); });
  }

  sectionsBox_ = new QWidget(page);
  column->addWidget(sectionsBox_, 1);
  markers_ = new IssueMarkers(sectionsBox_, this);
  columns_ = new QBoxLayout(QBoxLayout::LeftToRight, sectionsBox_);
  columns_->setContentsMargins(0, 0, 0, 0);
  auto* left = new QVBoxLayout;
  auto* right = new QVBoxLayout;
  columns_->addLayout(left, 1);
  columns_->addLayout(right, 1);

  schedule_ = new ScheduleEditor(markers_, sectionsBox_);
  callbacks_ = new CallbackListEditor(markers_, sectionsBox_);
  const QList<ProjectSection*> leftSections = {
      makeGeneralSection(markers_, sectionsBox_), makeModelSection(markers_, sectionsBox_),
      makeOptimizerSection(markers_, sectionsBox_), schedule_,
      makeLengthSection(markers_, sectionsBox_)};
  const QList<ProjectSection*> rightSections = {new DataSection(markers_, sectionsBox_), callbacks_,
                                                makeMonitorsSection(markers_, sectionsBox_),
                                                makeInitSection(markers_, sectionsBox_),
                                                makeSpeedSection(markers_, sectionsBox_)};
  for (ProjectSection* section : leftSections) left->addWidget(section);
  for (ProjectSection* section : rightSections) right->addWidget(section);
  left->addStretch(1);
  right->addStretch(1);
  sections_ = leftSections + rightSections;
  for (ProjectSection* section : sections_) {
    connect(section, &ProjectSection::edited, this, &ProjectEditor::applyEdits);
  }
  connect(callbacks_, &CallbackListEditor::currentChanged, this, &ProjectEditor::showIssues);
  formScroll_->viewport()->installEventFilter(this);
  sectionsBox_->installEventFilter(this);  // content changes: a section shown, a wider page
}

bool ProjectEditor::eventFilter(QObject* watched, QEvent* event) {
  // updateColumns only changes the direction when the answer changes, so the layout request it
  // may cause ends there.
  if ((watched == formScroll_->viewport() && event->type() == QEvent::Resize) ||
      (watched == sectionsBox_ && event->type() == QEvent::LayoutRequest)) {
    updateColumns();
  }
  return QWidget::eventFilter(watched, event);
}

void ProjectEditor::updateColumns() {
  if (formScroll_->widget() == nullptr) return;  // still being built
  const QMargins page = formScroll_->widget()->layout()->contentsMargins();
  // spacing() is -1 when the style spaces widget pairs itself; count a typical gap then.
  constexpr int kFallbackSpacing = 12;
  const int spacing = columns_->spacing() >= 0 ? columns_->spacing() : kFallbackSpacing;
  int sideBySide = spacing + page.left() + page.right();
  for (int i = 0; i < columns_->count(); ++i) {
    sideBySide += columns_->itemAt(i)->sizeHint().width();
  }
  const auto direction = formScroll_->viewport()->width() >= sideBySide ? QBoxLayout::LeftToRight
                                                                        : QBoxLayout::TopToBottom;
  if (columns_->direction() != direction) columns_->setDirection(direction);
}

bool ProjectEditor::setDocument(const QString& jsonText, QString* error) {
  QString text = jsonText;
  if (services_.canonicalize) {
    QString why;  // the same problems come from validate below
    const QString canonical = services_.canonicalize(jsonText, &why);
    if (!canonical.isEmpty()) text = canonical;
  }
  const ParsedJson parsed = parseJsonObject(text);
  if (parsed.ok) text = toProjectText(parsed.object);
  parseTimer_.stop();
  if (!parsed.ok) {
    root_ = QJsonObject();  // the form shows defaults (disabled), not the previous project
    loadSections();
  }
  jsonPage_->setText(text);
  jsonPage_->editor()->document()->clearUndoRedoStacks();
  jsonPage_->showStart();
  savedDocument_ = text;
  parseText();  // loads the form, emits documentChanged, validates
  updateModified();
  if (!valid_ && error != nullptr) {
    QStringList lines;
    for (const bridge::ProjectIssueView& issue : issues_) {
      lines.append(issue.path + QStringLiteral(": ") + issue.message);
    }
    *error = lines.join(QLatin1Char('\n'));
  }
  return valid_;
}

QString ProjectEditor::document() const {
  const QString text = jsonPage_->text();
  const ParsedJson parsed = parseJsonObject(text);
  return parsed.ok ? toProjectText(parsed.object) : text;
}

void ProjectEditor::setUnmodified() {
  savedDocument_ = document();
  updateModified();
}

QJsonObject ProjectEditor::trainerSection() const { return root_.value("trainer").toObject(); }

bool ProjectEditor::setTrainerSection(const QJsonObject& trainer) {
  if (parseTimer_.isActive()) {
    parseTimer_.stop();
    parseText();
  }
  if (!parsedOk_) return false;
  applyEdits({trainer.isEmpty() ? removal("trainer") : JsonEdit{"trainer", trainer}});
  validateNow();
  return true;
}

void ProjectEditor::showTab(int index) { tabs_->setCurrentIndex(index); }

void ProjectEditor::applyEdits(const JsonEdits& edits) {
  if (!parsedOk_) return;  // the form is disabled: nothing to apply to
  root_ = gui::applyEdits(root_, edits);
  jsonPage_->setText(toProjectText(root_));
  documentEdited();
}

void ProjectEditor::documentEdited() {
  loadSections();
  updateModified();
  emit documentChanged();
  validateTimer_.start();
}

void ProjectEditor::parseText() {
  const ParsedJson parsed = parseJsonObject(jsonPage_->text());
  parsedOk_ = parsed.ok;
  parseError_ = parsed.error;
  parseErrorOffset_ = parsed.offset;
  sectionsBox_->setEnabled(parsed.ok);
  parseBanner_->setVisible(!parsed.ok);
  jsonPage_->setSyntaxError(parsed.ok ? QString() : parsed.error, parsed.offset);
  if (parsed.ok) {
    root_ = parsed.object;
    loadSections();
  }
  updateModified();
  emit documentChanged();
  validateNow();  // the text was given 300 ms already
}

void ProjectEditor::validateNow() {
  if (parseTimer_.isActive()) {
    parseTimer_.stop();
    parseText();  // validates
    return;
  }
  validateTimer_.stop();
  const QString text = document();
  // One analysis per edit: a document analysed already (Start right after an edit settled) is
  // not parsed again on this thread.
  if (!analyzedText_ || *analyzedText_ != text) {
    summary_ = services_.analyze ? services_.analyze(text) : bridge::ProjectSummaryView();
    analyzedText_ = text;
  }
  issues_ = summary_.issues;
  if (!parsedOk_) {
    // The engine's message at "$" says where its parser stopped; ours if it gave none.
    QString where = parseError_;
    for (const bridge::ProjectIssueView& issue : issues_) {
      if (withoutRoot(issue.path).isEmpty()) where = issue.message;
    }
    if (issues_.isEmpty()) issues_.append({QStringLiteral("$"), parseError_});
    parseBanner_->setText(tr("The JSON text does not parse (%1). Fix it in the <a "
                             "href=\"#json\">JSON tab</a>: the form is disabled until then.")
                              .arg(where.toHtmlEscaped()));
  }
  showIssues();
  const bool valid = parsedOk_ && issues_.isEmpty();
  schedule_->setCurve(valid ? summary_.learningRateCurve : QVector<QPointF>());
  if (valid != valid_) {
    valid_ = valid;
    emit validityChanged(valid);
  }
  emit analyzed();
}

void ProjectEditor::loadSections() {
  for (ProjectSection* section : sections_) section->load(root_);
  showIssues();  // fields may have been shown or hidden
}

void ProjectEditor::showIssues() {
  const bridge::ProjectIssueViews unclaimed = markers_->show(issues_);
  callbacks_->setIssues(issues_);
  issueList_->clear();
  for (const bridge::ProjectIssueView& issue : unclaimed) {
    auto* item = new QListWidgetItem(issue.path + QStringLiteral(": ") + issue.message, issueList_);
    item->setData(Qt::UserRole, issue.path);
  }
  fitListHeight(issueList_, 5);
  issuesTitle_->setVisible(!unclaimed.isEmpty());
  issueList_->setVisible(!unclaimed.isEmpty());
  jsonPage_->setIssues(issues_, parsedOk_ ? -1 : parseErrorOffset_);
  tabs_->setTabText(1, issues_.isEmpty() ? tr("JSON") : tr("JSON (%1)").arg(issues_.size()));
}

bridge::ProjectIssueViews ProjectEditor::inputProblems() const { return markers_->inputProblems(); }

void ProjectEditor::setPathBase(const QString& dir) { markers_->setPathBase(dir); }

void ProjectEditor::updateModified() {
  const bool modified = document() != savedDocument_;
  if (modified == modified_) return;
  modified_ = modified;
  emit modifiedChanged(modified);
}

void ProjectEditor::goTo(const QString& path) {
  if (QWidget* field = markers_->fieldFor(path)) {
    tabs_->setCurrentIndex(0);
    formScroll_->ensureWidgetVisible(field);
    field->setFocus();
    return;
  }
  tabs_->setCurrentIndex(1);
  jsonPage_->locate(path);
}

}  // namespace tbench::gui
