// Help > Keyboard Shortcuts and User Manual (see help_dialogs.h).
#include "help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace carbon::ui {

namespace {

QString plain(QString text) {
    text.remove(QLatin1Char('&'));
    text.remove(QStringLiteral("…"));
    return text.trimmed();
}

void collect(const QMenu* menu, const QString& path, QList<QPair<QString, QString>>& out) {
    for (const QAction* a : menu->actions()) {
        if (a->menu()) {
            collect(a->menu(), path + QStringLiteral(" > ") + plain(a->text()), out);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        if (!keys.isEmpty()) out.append({path + QStringLiteral(" > ") + plain(a->text()), keys.join(QStringLiteral(", "))});
    }
}

QDialog* dialog(QWidget* parent, const QString& title, QWidget* body, QSize size) {
    auto* d = new QDialog(parent);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->setWindowTitle(title);
    auto* layout = new QVBoxLayout(d);
    layout->addWidget(body, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::close);
    layout->addWidget(buttons);
    d->resize(size);
    return d;
}

}  // namespace

QList<QPair<QString, QString>> menuShortcuts(const QMenuBar* bar) {
    QList<QPair<QString, QString>> out;
    for (const QAction* a : bar->actions())
        if (a->menu()) collect(a->menu(), plain(a->text()), out);
    return out;
}

void showShortcuts(QWidget* parent, const QMenuBar* bar) {
    const auto list = menuShortcuts(bar);
    auto* table = new QTableWidget(int(list.size()), 2);
    table->setHorizontalHeaderLabels({QObject::tr("Action"), QObject::tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int r = 0; r < list.size(); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(list[r].first));
        table->setItem(r, 1, new QTableWidgetItem(list[r].second));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    dialog(parent, QObject::tr("Keyboard shortcuts"), table, QSize(560, 520))->show();
}

void showManual(QWidget* parent) {
    QFile f(QStringLiteral(":/carbon/manual.md"));
    auto* text = new QTextBrowser;
    text->setOpenExternalLinks(false);
    if (f.open(QIODevice::ReadOnly)) text->setMarkdown(QString::fromUtf8(f.readAll()));
    dialog(parent, QObject::tr("Carbon Studio manual"), text, QSize(760, 640))->show();
}

}  // namespace carbon::ui
