// Workspaces: named arrangements of the docks around the editor, each showing the docks one kind
// of work needs, so that each view gets room on a laptop screen: Design (generation, designs and
// their tracks), Compare Variants (the variant effects, the base inspector, mutagenesis) and
// Analyse (the inspector, mutagenesis, the logo). View > Workspace switches (Ctrl+1, 2, 3); what
// the user changes in a workspace (a dock moved, resized, closed) is kept for that workspace and
// the next session; View > Reset Layout puts the current one back as it came. A dock a workspace
// does not show still has its place there (a tab of a group): when it gets something to show it
// comes forward in that place.
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <Qt>

class QAction;
class QMainWindow;
class QMenu;

namespace carbon::ui {

class Workspaces : public QObject {
    Q_OBJECT
public:
    enum class Kind { Design, CompareVariants, Analyse };

    // Docks tabbed together in one place of the window, the first in front.
    struct Group {
        Qt::DockWidgetArea area;
        QList<const char*> docks;  // object names
        QList<const char*> hidden;  // of `docks`, those this workspace does not show
        int size;  // width (left, right) or height (bottom) in per cent of the window's
    };
    struct Layout {
        Kind kind;
        const char* key;  // in QSettings and object names
        QList<Group> groups;
    };
    static const QList<Layout>& layouts();

    // Over `window`'s docks, added before.
    explicit Workspaces(QMainWindow* window, QObject* parent = nullptr);

    // View > Workspace (Design, Compare Variants, Analyse) and View > Reset Layout.
    void addViewActions(QMenu* view);

    Kind current() const { return current_; }
    static QString title(Kind kind);
    // Brings the current workspace's docks out: as the user left them, or as it comes.
    void show();
    // Keeps the docks' arrangement as the current workspace's (before they are hidden for the
    // welcome page, and at quit).
    void keep();
    // keep(), then every dock hidden (the welcome page has none); show() brings them back.
    void hideAll();

public slots:
    void switchTo(carbon::ui::Workspaces::Kind kind);
    void resetLayout();  // the current workspace as it comes

signals:
    void switched(carbon::ui::Workspaces::Kind kind);

private:
    void arrange(const Layout& layout);
    const Layout& layout(Kind kind) const;

    QMainWindow* window_;
    Kind current_ = Kind::Design;
    bool active_ = false;  // the docks are out (the editor is shown)
    QList<QAction*> actions_;
};

}  // namespace carbon::ui
