// Workspaces: the dock arrangements of the window (see workspaces.h).
#include "workspaces.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QKeySequence>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>

namespace carbon::ui {

namespace {

constexpr const char* kCurrentKey = "workspaces/current";

QString stateKey(const char* key) { return QStringLiteral("workspaces/%1").arg(QLatin1String(key)); }

}  // namespace

// Sizes are per cent of the window: a group's `size` is the thickness of its area (width of the
// left and right, height of the bottom) for the first group of an area, and the share of the
// area's length for a group placed beside it.
const QList<Workspaces::Layout>& Workspaces::layouts() {
    using G = Group;
    static const QList<Layout> all = {
        // Designing: the generation panel with the whole height it needs, the designs below the
        // editor with the Run Log beside them.
        {Kind::Design, "design",
         {G{Qt::LeftDockWidgetArea, {"projectDock", "featuresDock", "modelDock", "predictorsDock"}, {}, 21},
          G{Qt::RightDockWidgetArea, {"generationDock", "inspectorDock"}, {}, 28},
          G{Qt::BottomDockWidgetArea, {"designsDock", "designTracksDock", "designMapDock", "evolutionDock", "mutagenesisDock", "vepDock"},
            {"designMapDock", "evolutionDock", "mutagenesisDock", "vepDock"}, 40},
          G{Qt::BottomDockWidgetArea, {"runLogDock", "logoDock"}, {"logoDock"}, 30}}},
        // Variants: the base inspector (probabilities and the variant's tracks) down the right, the
        // variant table and mutagenesis below the editor; the Run Log a tab behind the project.
        {Kind::CompareVariants, "compare-variants",
         {G{Qt::LeftDockWidgetArea, {"projectDock", "featuresDock", "modelDock", "predictorsDock", "runLogDock"}, {}, 20},
          G{Qt::RightDockWidgetArea, {"inspectorDock", "generationDock"}, {"generationDock"}, 32},
          G{Qt::BottomDockWidgetArea, {"vepDock", "mutagenesisDock", "designsDock", "designTracksDock", "designMapDock", "evolutionDock", "logoDock"},
            {"designsDock", "designTracksDock", "designMapDock", "evolutionDock", "logoDock"}, 45}}},
        // Analysing a sequence: the inspector and the logo down the right, mutagenesis and tracks below.
        {Kind::Analyse, "analyse",
         {G{Qt::LeftDockWidgetArea, {"projectDock", "featuresDock", "modelDock", "predictorsDock", "runLogDock"}, {}, 20},
          G{Qt::RightDockWidgetArea, {"inspectorDock", "logoDock", "generationDock"}, {"generationDock"}, 32},
          G{Qt::BottomDockWidgetArea, {"mutagenesisDock", "designTracksDock", "designsDock", "designMapDock", "evolutionDock", "vepDock"},
            {"designsDock", "designMapDock", "evolutionDock", "vepDock"}, 42}}},
    };
    return all;
}

QString Workspaces::title(Kind kind) {
    switch (kind) {
        case Kind::Design: return tr("Design");
        case Kind::CompareVariants: return tr("Compare Variants");
        case Kind::Analyse: return tr("Analyse");
    }
    return {};
}

Workspaces::Workspaces(QMainWindow* window, QObject* parent) : QObject(parent), window_(window) {
    // The right column runs down to the status bar: the generation panel and the base inspector
    // (its variant chart) get the window's height; the bottom docks run under the left column.
    window_->setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    window_->setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    const QString saved = QSettings().value(QLatin1String(kCurrentKey)).toString();
    for (const Layout& l : layouts())
        if (saved == QLatin1String(l.key)) current_ = l.kind;
}

const Workspaces::Layout& Workspaces::layout(Kind kind) const {
    for (const Layout& l : layouts())
        if (l.kind == kind) return l;
    return layouts().first();
}

void Workspaces::addViewActions(QMenu* view) {
    QMenu* menu = view->addMenu(tr("&Workspace"));
    auto* group = new QActionGroup(menu);
    int n = 0;
    for (const Layout& l : layouts()) {
        QAction* a = menu->addAction(title(l.kind));
        a->setCheckable(true);
        a->setChecked(l.kind == current_);
        a->setShortcut(QKeySequence(tr("Ctrl+%1").arg(++n)));
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, k = l.kind] { switchTo(k); });
        actions_.append(a);
    }
    view->addAction(tr("&Reset Layout"), this, &Workspaces::resetLayout);
}

void Workspaces::arrange(const Layout& l) {
    const auto dock = [this](const char* name) { return window_->findChild<QDockWidget*>(QLatin1String(name)); };
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) window_->removeDockWidget(d);
    // The first dock of each group first (a dock split beside a tabbed one would join its tabs),
    // then the tabs of each group, then what the workspace does not show.
    const auto areaIndex = [](Qt::DockWidgetArea a) { return a == Qt::LeftDockWidgetArea ? 0 : a == Qt::RightDockWidgetArea ? 1 : 2; };
    QList<QDockWidget*> placed;  // the first dock of each group
    QDockWidget* lastOfArea[3] = {};
    for (const Group& g : l.groups) {
        QDockWidget* first = dock(g.docks.first());
        placed.append(first);
        if (!first) continue;
        window_->addDockWidget(g.area, first);
        QDockWidget*& last = lastOfArea[areaIndex(g.area)];
        // Beside the area's group before: side by side below, one above the other at the sides.
        if (last) window_->splitDockWidget(last, first, g.area == Qt::BottomDockWidgetArea ? Qt::Horizontal : Qt::Vertical);
        last = first;
        first->show();
    }
    for (qsizetype i = 0; i < l.groups.size(); ++i) {
        if (!placed[i]) continue;
        for (const char* name : l.groups[i].docks.mid(1))
            if (QDockWidget* d = dock(name)) {
                window_->tabifyDockWidget(placed[i], d);
                d->show();
            }
        for (const char* name : l.groups[i].hidden)
            if (QDockWidget* d = dock(name)) d->hide();
        placed[i]->raise();
    }
    // Sizes: each area's thickness, then the shares of the groups side by side.
    const QSize size = window_->size();
    for (int a = 0; a < 3; ++a) {
        QList<QDockWidget*> docks;
        QList<int> shares;
        int thickness = 0;
        for (qsizetype i = 0; i < l.groups.size(); ++i) {
            if (areaIndex(l.groups[i].area) != a || !placed[i]) continue;
            if (docks.isEmpty()) thickness = l.groups[i].size;
            docks.append(placed[i]);
            shares.append(docks.size() == 1 ? 0 : l.groups[i].size);
        }
        if (docks.isEmpty()) continue;
        const bool bottom = a == 2;
        window_->resizeDocks({docks.first()}, {(bottom ? size.height() : size.width()) * thickness / 100}, bottom ? Qt::Vertical : Qt::Horizontal);
        if (docks.size() > 1) {
            int rest = 100;
            for (int s : shares.mid(1)) rest -= s;
            shares[0] = std::max(10, rest);
            QList<int> px;
            const int length = bottom ? size.width() : size.height();
            for (int s : shares) px.append(length * s / 100);
            window_->resizeDocks(docks, px, bottom ? Qt::Horizontal : Qt::Vertical);
        }
    }
}

void Workspaces::show() {
    active_ = true;
    const QByteArray saved = QSettings().value(stateKey(layout(current_).key)).toByteArray();
    if (saved.isEmpty() || !window_->restoreState(saved)) arrange(layout(current_));
}

void Workspaces::keep() {
    if (active_) QSettings().setValue(stateKey(layout(current_).key), window_->saveState());
}

void Workspaces::hideAll() {
    keep();
    active_ = false;
    for (QDockWidget* d : window_->findChildren<QDockWidget*>()) d->hide();
}

void Workspaces::switchTo(Kind kind) {
    keep();
    current_ = kind;
    QSettings().setValue(QLatin1String(kCurrentKey), QLatin1String(layout(kind).key));
    for (qsizetype i = 0; i < actions_.size(); ++i) actions_[i]->setChecked(layouts()[i].kind == kind);
    if (active_) show();
    emit switched(kind);
}

void Workspaces::resetLayout() {
    QSettings().remove(stateKey(layout(current_).key));
    if (active_) arrange(layout(current_));
}

}  // namespace carbon::ui
