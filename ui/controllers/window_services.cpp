// WindowServices: the window's shared services for controllers (see window_services.h).
#include "window_services.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <utility>

#include "views/message_bar.h"
#include "views/run_log.h"

namespace carbon::ui {

WindowServices::WindowServices(QWidget* window, RunLog* log, MessageBar* bar, QObject* parent)
    : QObject(parent), window_(window), log_(log), bar_(bar) {}

void WindowServices::error(const QString& text, const QString& actionText, std::function<void()> action) {
    bar_->showError(text, actionText, std::move(action));
    note(text);
}

void WindowServices::note(const QString& text) { log_->note(text); }

namespace {
constexpr const char* kLastFolderKey = "dialogs/lastFolder";
}

QString WindowServices::startFolder() const {
    const QString last = QSettings().value(QLatin1String(kLastFolderKey)).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const QString project = QFileInfo(startFolder_).canonicalFilePath();
    if (!project.isEmpty() && !(project + QLatin1Char('/')).startsWith(QFileInfo(data).canonicalFilePath() + QLatin1Char('/')))
        return project;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

QString WindowServices::chooseFile(bool save, const QString& title, const QString& filter) {
    QString path;
    if (!nextFileAnswer_.isNull())
        path = std::exchange(nextFileAnswer_, QString());
    else
        path = save ? QFileDialog::getSaveFileName(window_, title, startFolder(), filter)
                    : QFileDialog::getOpenFileName(window_, title, startFolder(), filter);
    if (!path.isEmpty()) QSettings().setValue(QLatin1String(kLastFolderKey), QFileInfo(path).absolutePath());
    return path;
}

QString WindowServices::chooseDirectory(const QString& title) {
    const QString path = !nextFileAnswer_.isNull() ? std::exchange(nextFileAnswer_, QString())
                                                   : QFileDialog::getExistingDirectory(window_, title, startFolder());
    if (!path.isEmpty()) QSettings().setValue(QLatin1String(kLastFolderKey), QFileInfo(path).absolutePath());
    return path;
}

bool WindowServices::confirm(const QString& title, const QString& text, const QString& accept) {
    if (nextConfirmAnswer_ >= 0) return std::exchange(nextConfirmAnswer_, -1) == 1;
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Cancel, window_);
    QPushButton* yes = box.addButton(accept, QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == yes;
}

void WindowServices::warn(const QString& title, const QString& text) {
    lastWarning_ = text;
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, window_);
    box->setObjectName(QStringLiteral("warningDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the reason can be copied into a report
    box->open();
}

}  // namespace carbon::ui
