// What every controller asks of the window around it, without knowing the window: a line in the
// status bar, a line in the Run Log (or both: report), a dock brought forward, a file chosen, a
// parent for dialogs, a question answered. MainWindow answers the signals; the file chooser and the
// question are here, so a script or a test can answer the next dialog instead of a person
// (setNextFileAnswer, setNextConfirmAnswer).
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QWidget;

namespace carbon::ui {

class MessageBar;
class RunLog;

class WindowServices : public QObject {
    Q_OBJECT
public:
    WindowServices(QWidget* window, RunLog* log, MessageBar* bar, QObject* parent = nullptr);

    QWidget* window() const { return window_; }
    RunLog* runLog() const { return log_; }

    // The status bar for `ms` milliseconds.
    void message(const QString& text, int ms = 8000) { emit messageRequested(text, ms); }
    // The Run Log.
    void note(const QString& text);
    // Both: what the user should see now and find later (errors, stored results).
    void report(const QString& text, int ms = 15000) {
        message(text, ms);
        note(text);
    }
    // A failed action: the message bar at the top of the window (with one action that resolves
    // it, when there is one) and the Run Log.
    void error(const QString& text, const QString& actionText = {}, std::function<void()> action = {});
    MessageBar* messageBar() const { return bar_; }
    // Shows the dock of that object name and raises its tab (after the welcome page, if shown).
    void raiseDock(const QString& objectName) { emit dockRequested(objectName); }
    // The sequence editor in the centre, in place of the welcome page.
    void showEditor() { emit editorRequested(); }

    // A file to open or save (a file dialog, in startFolder()), or the answer set by
    // setNextFileAnswer; "" when cancelled. The folder of the file chosen is remembered (QSettings).
    QString chooseFile(bool save, const QString& title, const QString& filter);
    QString chooseDirectory(const QString& title);  // a folder; setNextFileAnswer answers it too
    void setNextFileAnswer(const QString& path) { nextFileAnswer_ = path; }
    // A question before an action that costs much (a run that takes most of the free memory):
    // a dialog with `accept` and Cancel (Cancel the default), or the answer set by
    // setNextConfirmAnswer. True when the user accepted.
    bool confirm(const QString& title, const QString& text, const QString& accept);
    // A refusal the user must see where they acted (File > Open of a file that cannot be trusted):
    // a warning dialog over the window, window-modal but not blocking (QDialog::open), named
    // "warningDialog"; its text stays readable as lastWarning().
    void warn(const QString& title, const QString& text);
    QString lastWarning() const { return lastWarning_; }
    void setNextConfirmAnswer(bool yes) { nextConfirmAnswer_ = yes ? 1 : 0; }
    // The open project's folder, where dialogs start when no file was chosen yet.
    void setStartFolder(const QString& folder) { startFolder_ = folder; }
    // Where the next file dialog opens: the folder of the last file chosen (this session or one
    // before) while it exists; else the open project's folder, unless that is the application's
    // own hidden data folder (the sample project lives there); else Documents, else home.
    QString startFolder() const;

signals:
    void messageRequested(const QString& text, int ms);
    void dockRequested(const QString& objectName);
    void editorRequested();

private:
    QWidget* window_;
    RunLog* log_;
    MessageBar* bar_;
    QString nextFileAnswer_, startFolder_, lastWarning_;
    int nextConfirmAnswer_ = -1;  // -1: ask
};

}  // namespace carbon::ui
