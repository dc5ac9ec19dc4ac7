// A worker object on a thread of its own (the engine's, the project file's), reached only through
// queued calls: post() runs a function on the worker's thread, and results come back as the
// worker's queued signals. Destroying this stops the thread (interruption requested, the event
// loop quit, joined) and then deletes the worker, whose thread has finished by then.
#pragma once

#include <QMetaObject>
#include <QThread>
#include <utility>

namespace carbon::ui {

template <class Worker>
class WorkerThread {
public:
    explicit WorkerThread(const char* name) : worker_(new Worker) {
        worker_->moveToThread(&thread_);
        thread_.setObjectName(QString::fromLatin1(name));
        thread_.start();
    }
    ~WorkerThread() {
        stop();
        delete worker_;
    }
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    // For connections and for the worker's thread-safe members (cancellation flags).
    Worker* worker() const { return worker_; }

    // Runs f(worker) on the worker's thread, after what is already queued there.
    template <class F>
    void post(F f) const {
        QMetaObject::invokeMethod(worker_, [w = worker_, f = std::move(f)]() mutable { f(w); }, Qt::QueuedConnection);
    }
    // The same, returning once it has run (closing: the last save before the thread stops).
    template <class F>
    void call(F f) const {
        if (!thread_.isRunning()) return;
        QMetaObject::invokeMethod(worker_, [w = worker_, f = std::move(f)]() mutable { f(w); }, Qt::BlockingQueuedConnection);
    }

    void stop() {
        if (!thread_.isRunning()) return;
        thread_.requestInterruption();
        thread_.quit();
        thread_.wait();
    }

private:
    QThread thread_;
    Worker* worker_;
};

}  // namespace carbon::ui
