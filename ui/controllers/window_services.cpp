// WindowServices: the window's shared services for controllers (see window_services.h).
#include "window_services.h"

#include <QFileDialog>
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

QString WindowServices::chooseFile(bool save, const QString& title, const QString& filter) {
    if (!nextFileAnswer_.isNull()) return std::exchange(nextFileAnswer_, QString());
    return save ? QFileDialog::getSaveFileName(window_, title, startFolder_, filter)
                : QFileDialog::getOpenFileName(window_, title, startFolder_, filter);
}

}  // namespace carbon::ui
