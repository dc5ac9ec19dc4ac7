// MessageBar: a failed action's message at the top of the window, where the user looks, until it
// is dismissed or another message replaces it; optionally with one action that resolves it (Open
// Model Folder…). Not modal: the work in the window goes on. Plain text (file names are text).
#pragma once

#include <QFrame>
#include <functional>

class QLabel;
class QPushButton;

namespace carbon::ui {

class MessageBar : public QFrame {
    Q_OBJECT
public:
    explicit MessageBar(QWidget* parent = nullptr);

    // Shows `text`; with `actionText`, a button that runs `action` and dismisses the bar.
    void showError(const QString& text, const QString& actionText = {}, std::function<void()> action = {});
    QString text() const;
    QPushButton* actionButton() const { return action_; }

public slots:
    void dismiss();

private:
    QLabel* text_;
    QPushButton* action_;
    std::function<void()> onAction_;
};

}  // namespace carbon::ui
