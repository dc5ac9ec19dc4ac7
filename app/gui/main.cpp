// carbon-studio: the desktop application's entry point. Optional arguments: a model folder to
// load and a FASTA file to open (handy for scripted screenshots); everything else is in ui/.
// --smoke-test builds the main window, runs the event loop briefly and exits 0 (the packaging
// check starts the installed program this way, with QT_QPA_PLATFORM=offscreen).
#include <QApplication>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>

#include "main_window.h"
#include "theme.h"

namespace {

// A model folder, a sequence file, or a project file (*.carbon, the file manager's double-click:
// the window cannot open projects yet, so it says so instead of reading SQLite as bases).
void openArgument(carbon::ui::MainWindow& window, const QString& arg) {
    const QFileInfo info(arg);
    if (info.isDir()) window.loadModel(arg);
    else if (info.suffix().compare(QStringLiteral("carbon"), Qt::CaseInsensitive) == 0)
        window.statusBar()->showMessage(
            QApplication::translate("main", "Opening project files is not supported yet: %1").arg(arg));
    else window.openSequenceFile(arg);
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Carbon"));
    QApplication::setApplicationName(QStringLiteral("Carbon Studio"));
    QApplication::setDesktopFileName(QStringLiteral("org.carbonstudio.CarbonStudio"));
    QStringList args = QApplication::arguments().mid(1);
    const bool smokeTest = args.removeAll(QStringLiteral("--smoke-test")) > 0;
    if (carbon::ui::savedTheme() == carbon::ui::Theme::Dark) carbon::ui::applyTheme(carbon::ui::Theme::Dark);
    carbon::ui::MainWindow window;
    for (const QString& arg : args) openArgument(window, arg);
    window.show();
    if (smokeTest) QTimer::singleShot(300, &app, [] { QApplication::exit(0); });
    return app.exec();
}
