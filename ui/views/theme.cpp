// Theme: builds the light/dark QPalettes and persists the user's choice.
#include "theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>

namespace carbon::ui {

namespace {
const char* kThemeKey = "view/theme";
}

QPalette themePalette(Theme theme) {
    if (theme == Theme::Light) return QApplication::style()->standardPalette();
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x6a, 0xa8, 0xf0));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xb0));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return p;
}

namespace {

// The Fusion style draws an unticked box in the Base colour with an outline a shade darker than
// the window: in the dark palette that is a dark square on a dark panel, which cannot be read.
// A light outline makes every unticked box (check boxes, checkable list and tree items, group
// boxes, menu items) visible; ticked boxes keep the style's own drawing.
const char* kDarkIndicators =
    "QCheckBox::indicator:unchecked, QGroupBox::indicator:unchecked, QAbstractItemView::indicator:unchecked {"
    " border: 1px solid #a4a8ad; border-radius: 2px; background: #1e1f22; width: 12px; height: 12px; }";

}  // namespace

void applyTheme(Theme theme) {
    QApplication::setPalette(themePalette(theme));
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()))
        app->setStyleSheet(theme == Theme::Dark ? QString::fromLatin1(kDarkIndicators) : QString());
    QSettings().setValue(kThemeKey, theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light"));
}

Theme savedTheme() {
    return QSettings().value(kThemeKey).toString() == QLatin1String("dark") ? Theme::Dark : Theme::Light;
}

QColor baseColor(char c) {
    switch (c) {
        case 'A': case 'a': return QColor(0x1b, 0x9e, 0x3e);
        case 'C': case 'c': return QColor(0x1f, 0x5f, 0xbf);
        case 'G': case 'g': return QColor(0xc0, 0x7a, 0x00);
        case 'T': case 't': return QColor(0xc8, 0x23, 0x23);
        default: return QColor(0x80, 0x80, 0x80);  // N and other IUPAC codes
    }
}

}  // namespace carbon::ui
