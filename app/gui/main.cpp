// carbon-studio: the desktop application's entry point. Arguments: project files (*.carbon),
// FASTA / VCF files and model folders, opened as a drop on the window would open them (the file
// manager's double-click on a project passes its path). --smoke-test builds the main window,
// runs the event loop briefly and exits 0 (the packaging check starts the installed program this
// way, with QT_QPA_PLATFORM=offscreen).
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>

#include "carbon/gpu_provider.h"
#include "main_window.h"
#include "views/theme.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    carbon::load_gpu_plugin();  // the CUDA backend, where it was built and its libraries load
    QApplication::setOrganizationName(QStringLiteral("Carbon"));
    QApplication::setApplicationName(QStringLiteral("Carbon Studio"));
    QApplication::setApplicationVersion(QStringLiteral(CARBON_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("org.carbonstudio.CarbonStudio"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Design regulatory DNA with the Carbon language models.\n"
                "Each PATH is opened as if dropped on the window: a project file (*.carbon), a FASTA\n"
                "or VCF file, or a model folder (config.json, *.safetensors, tokenizer files)."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption smoke(QStringLiteral("smoke-test"),
                                   QApplication::translate("main", "Open the window, run briefly and exit 0 (packaging check)."));
    parser.addOption(smoke);
    parser.addPositionalArgument(QStringLiteral("PATH"), QApplication::translate("main", "Files or folders to open."),
                                 QStringLiteral("[PATH...]"));
    parser.process(app);  // --help / --version print and exit here

    for (const QString& arg : parser.positionalArguments()) {
        if (!QFileInfo::exists(arg)) {
            std::fprintf(stderr, "carbon-studio: %s: no such file or folder\n", qPrintable(arg));
            return 2;
        }
    }
    if (carbon::ui::savedTheme() == carbon::ui::Theme::Dark) carbon::ui::applyTheme(carbon::ui::Theme::Dark);
    carbon::ui::MainWindow window;
    for (const QString& arg : parser.positionalArguments()) window.openPath(arg);
    if (!parser.isSet(smoke)) window.restoreSession();
    window.show();
    if (parser.isSet(smoke)) QTimer::singleShot(300, &app, [] { QApplication::exit(0); });
    return app.exec();
}
