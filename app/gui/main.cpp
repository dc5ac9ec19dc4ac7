// carbon-studio: the desktop application's entry point. Optional arguments: a model folder to
// load and a FASTA file to open (handy for scripted screenshots); everything else is in ui/.
#include <QApplication>
#include <QFileInfo>

#include "main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Carbon"));
    QApplication::setApplicationName(QStringLiteral("Carbon Studio"));
    carbon::ui::MainWindow window;
    for (const QString& arg : QApplication::arguments().mid(1)) {
        if (QFileInfo(arg).isDir()) window.loadModel(arg);
        else window.openSequenceFile(arg);
    }
    window.show();
    return app.exec();
}
