// MessageBar (see message_bar.h).
#include "message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace carbon::ui {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("messageBar"));
    setAccessibleName(tr("Message"));
    setFrameShape(QFrame::StyledPanel);
    // The palette's own colours, tinted: readable in the light and the dark theme alike.
    setAutoFillBackground(true);
    QPalette pal = palette();
    const QColor base = pal.color(QPalette::Window);
    const QColor tint(0xd0, 0x30, 0x20);
    pal.setColor(QPalette::Window, QColor((base.red() * 4 + tint.red()) / 5, (base.green() * 4 + tint.green()) / 5,
                                          (base.blue() * 4 + tint.blue()) / 5));
    setPalette(pal);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 4, 4);
    text_ = new QLabel;
    text_->setTextFormat(Qt::PlainText);
    text_->setWordWrap(true);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(text_, 1);
    action_ = new QPushButton;
    action_->setVisible(false);
    row->addWidget(action_);
    auto* close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss"));
    close->setAutoRaise(true);
    row->addWidget(close);
    connect(close, &QToolButton::clicked, this, &MessageBar::dismiss);
    connect(action_, &QPushButton::clicked, this, [this] {
        const auto act = onAction_;
        dismiss();
        if (act) act();
    });
    setVisible(false);
}

void MessageBar::showError(const QString& text, const QString& actionText, std::function<void()> action) {
    text_->setText(text);
    onAction_ = std::move(action);
    action_->setText(actionText);
    action_->setVisible(!actionText.isEmpty() && onAction_);
    setVisible(true);
}

QString MessageBar::text() const { return isVisible() ? text_->text() : QString(); }

void MessageBar::dismiss() {
    setVisible(false);
    onAction_ = {};
}

}  // namespace carbon::ui
