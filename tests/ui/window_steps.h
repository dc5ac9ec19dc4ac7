// Steps the window tests take again and again, each waiting for the window to finish it.
#pragma once

#include <QSignalSpy>
#include <QString>
#include <QTest>

#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "main_window.h"

namespace ui_test {

// Opens the project at `path` in `w`; false when it has not opened within 20 s.
inline bool openProject(carbon::ui::MainWindow& w, const QString& path) {
    QSignalSpy opened(w.project(), &carbon::ui::ProjectController::projectOpened);
    w.project()->openProject(path);
    return opened.count() > 0 || opened.wait(20000);
}

// Loads the model folder `dir` in `w`; false when it is not the loaded model within 60 s.
inline bool loadModel(carbon::ui::MainWindow& w, const QString& dir) {
    w.models()->load(dir);
    return QTest::qWaitFor([&] { return w.models()->isReady() && w.models()->dir() == dir; }, 60000);
}

}  // namespace ui_test
