// The host device seam's deferred streams, events and graphs (host_streams.h). Handles are the
// addresses of the state objects, looked up before use, so a stale or foreign handle is an error.
#include "host_streams.h"

#include <exception>
#include <vector>

namespace carbon::gpu::host_seam {
namespace {

template <class Handle, class T>
Handle handle_of(T* state) {
    return reinterpret_cast<Handle>(state);
}

}  // namespace

HostStreams::StreamState& HostStreams::state(Stream stream, const char* call) {
    require(stream, call);
    return *streams_.at(stream);
}

void HostStreams::require(Stream stream, const char* call) const {
    if (streams_.count(stream) == 0)
        throw Error(call, "cudaErrorInvalidResourceHandle",
                    stream == nullptr ? "the null stream: the seam's work goes on a stream from create_stream()"
                                      : "not a stream of this device (destroyed, or made elsewhere)",
                    __FILE__, __LINE__);
}

HostStreams::EventState& HostStreams::event_state(Event event, const char* call) {
    const auto it = events_.find(event);
    if (it == events_.end())
        throw Error(call, "cudaErrorInvalidResourceHandle",
                    "not an event of this device (destroyed, or made elsewhere)", __FILE__, __LINE__);
    return *it->second;
}

std::vector<Stream> HostStreams::streams() const {
    return order_;
}

Stream HostStreams::create_stream() {
    check_sticky("cudaStreamCreateWithFlags");
    auto s = std::make_unique<StreamState>();
    const Stream handle = handle_of<Stream>(s.get());
    streams_.emplace(handle, std::move(s));
    order_.push_back(handle);
    return handle;
}

void HostStreams::destroy_stream(Stream stream) {
    StreamState& s = state(stream, "cudaStreamDestroy");
    if (s.capture)
        throw Error("cudaStreamDestroy", "cudaErrorIllegalState", "the stream is capturing", __FILE__, __LINE__);
    // After a failure the queues are empty and cleanup must still work: only drain a healthy device.
    if (!sticky_) stream_synchronize(stream, "cudaStreamDestroy");
    streams_.erase(stream);
    std::erase(order_, stream);
}

void HostStreams::enqueue(Stream stream, Work work) {
    StreamState& s = state(stream, work.what.c_str());
    if (s.capture)
        s.capture->push_back(std::move(work));
    else
        s.queue.push_back(std::move(work));
}

std::size_t HostStreams::pending(Stream stream) const {
    require(stream, "pending");
    return streams_.at(stream)->queue.size();
}

void HostStreams::run_one(StreamState& s) {
    Work work = std::move(s.queue.front());
    s.queue.pop_front();  // before running: the work may run other streams (an event wait)
    try {
        work.run();
    } catch (const Error& e) {
        throw Error(e.call(), e.status(), "in " + work.what + ": " + e.detail(), e.file().c_str(), e.line());
    } catch (const std::exception& e) {
        throw Error(work.what, "cudaErrorLaunchFailure", e.what(), __FILE__, __LINE__);
    }
}

// Streams only wait for records issued before the wait, so this never waits in a circle.
void HostStreams::run_until(const RecordState& record) {
    while (!record.done) {
        StreamState& s = *streams_.at(record.stream);  // a stream is drained before it is destroyed
        if (s.queue.empty())
            throw Error("event wait", "cudaErrorIllegalState", "an event record never queued (host seam bug)", __FILE__,
                        __LINE__);
        run_one(s);
    }
}

void HostStreams::guarded(const char* call, const std::function<void()>& drain) {
    check_sticky(call);
    try {
        drain();
    } catch (const Error& e) {
        sticky_ = Error(call, e.status(), std::string("an operation issued earlier failed when it ran: ") + e.what(),
                        __FILE__, __LINE__);
        discard();
        throw *sticky_;
    }
}

void HostStreams::check_sticky(const char* call) const {
    if (sticky_)
        throw Error(call, sticky_->status(), "the device is unusable after an earlier failure: " + sticky_->detail(),
                    __FILE__, __LINE__);
}

void HostStreams::discard() {
    for (auto& [handle, s] : streams_) s->queue.clear();
}

void HostStreams::stream_synchronize(Stream stream, const char* call) {
    StreamState& s = state(stream, call);
    if (s.capture) {
        if (s.capture_invalidated_by.empty()) s.capture_invalidated_by = call;
        throw Error(call, "cudaErrorStreamCaptureUnsupported",
                    "the stream is capturing a graph (the capture is now invalid)", __FILE__, __LINE__);
    }
    guarded(call, [this, &s] {
        while (!s.queue.empty()) run_one(s);
    });
}

void HostStreams::device_synchronize(const char* call) {
    if (capturing()) refuse_during_capture(call, __FILE__, __LINE__);
    guarded(call, [this] {
        for (Stream handle : order_) {
            StreamState& s = *streams_.at(handle);
            while (!s.queue.empty()) run_one(s);
        }
    });
}

Event HostStreams::create_event() {
    check_sticky("cudaEventCreateWithFlags");
    auto e = std::make_unique<EventState>();
    const Event handle = handle_of<Event>(e.get());
    events_.emplace(handle, std::move(e));
    return handle;
}

void HostStreams::destroy_event(Event event) {
    event_state(event, "cudaEventDestroy");
    events_.erase(event);  // pending waits hold their record, not the event
}

void HostStreams::event_record(Event event, Stream stream) {
    check_sticky("cudaEventRecord");
    EventState& e = event_state(event, "cudaEventRecord");
    StreamState& s = state(stream, "cudaEventRecord");
    if (s.capture)
        throw Error("cudaEventRecord", "cudaErrorStreamCaptureUnsupported",
                    "events inside a capture (cross-stream graphs) are not emulated by the host seam", __FILE__,
                    __LINE__);
    auto record = std::make_shared<RecordState>();
    record->stream = stream;
    e.last = record;
    s.queue.push_back(Work{"cudaEventRecord", [record] { record->done = true; }});
}

void HostStreams::stream_wait_event(Stream stream, Event event) {
    check_sticky("cudaStreamWaitEvent");
    EventState& e = event_state(event, "cudaStreamWaitEvent");
    StreamState& s = state(stream, "cudaStreamWaitEvent");
    if (s.capture)
        throw Error("cudaStreamWaitEvent", "cudaErrorStreamCaptureUnsupported",
                    "events inside a capture (cross-stream graphs) are not emulated by the host seam", __FILE__,
                    __LINE__);
    if (!e.last) return;  // never recorded: nothing to wait for, as in CUDA
    s.queue.push_back(Work{"cudaStreamWaitEvent", [this, record = e.last] { run_until(*record); }});
}

void HostStreams::event_synchronize(Event event, const char* call) {
    EventState& e = event_state(event, call);
    if (!e.last) return;
    guarded(call, [this, record = e.last] { run_until(*record); });
}

void HostStreams::begin_capture(Stream stream) {
    check_sticky("cudaStreamBeginCapture");
    StreamState& s = state(stream, "cudaStreamBeginCapture");
    if (s.capture)
        throw Error("cudaStreamBeginCapture", "cudaErrorIllegalState", "the stream is already capturing", __FILE__,
                    __LINE__);
    s.capture = std::make_shared<std::vector<Work>>();
    s.capture_invalidated_by.clear();
}

Graph HostStreams::end_capture(Stream stream) {
    check_sticky("cudaStreamEndCapture");
    StreamState& s = state(stream, "cudaStreamEndCapture");
    if (!s.capture)
        throw Error("cudaStreamEndCapture", "cudaErrorIllegalState", "the stream is not capturing", __FILE__, __LINE__);
    auto work = std::move(s.capture);
    s.capture.reset();
    if (!s.capture_invalidated_by.empty())
        throw Error("cudaStreamEndCapture", "cudaErrorStreamCaptureInvalidated",
                    s.capture_invalidated_by + " during the capture invalidated it (the first such call is named)",
                    __FILE__, __LINE__);
    auto g = std::make_unique<GraphState>();
    g->work = std::move(work);
    g->captured_on = stream;
    const Graph handle = handle_of<Graph>(g.get());
    graphs_.emplace(handle, std::move(g));
    return handle;
}

void HostStreams::launch_graph(Graph graph, Stream stream) {
    check_sticky("cudaGraphLaunch");
    StreamState& s = state(stream, "cudaGraphLaunch");
    const auto it = graphs_.find(graph);
    if (it == graphs_.end())
        throw Error("cudaGraphLaunch", "cudaErrorInvalidResourceHandle",
                    "not a graph of this device (destroyed, or never returned by end_capture)", __FILE__, __LINE__);
    if (it->second->captured_on != stream)
        throw Error("cudaGraphLaunch", "cudaErrorInvalidValue",
                    "a graph runs on the stream it was captured on (its GEMMs use that stream's workspace)", __FILE__,
                    __LINE__);
    if (s.capture)
        throw Error("cudaGraphLaunch", "cudaErrorStreamCaptureUnsupported",
                    "graphs inside a capture are not emulated by the host seam", __FILE__, __LINE__);
    auto work = it->second->work;
    s.queue.push_back(Work{"cudaGraphLaunch of " + std::to_string(work->size()) + " operations", [work] {
                               for (std::size_t i = 0; i < work->size(); ++i) {
                                   const Work& w = (*work)[i];
                                   const std::string where = "graph operation " + std::to_string(i + 1) + " of " +
                                                             std::to_string(work->size()) + " (" + w.what + ")";
                                   try {
                                       w.run();
                                   } catch (const Error& e) {
                                       throw Error(e.call(), e.status(), where + ": " + e.detail(), e.file().c_str(),
                                                   e.line());
                                   } catch (const std::exception& e) {
                                       throw Error(where, "cudaErrorLaunchFailure", e.what(), __FILE__, __LINE__);
                                   }
                               }
                           }});
}

void HostStreams::destroy_graph(Graph graph) {
    if (graphs_.erase(graph) == 0)
        throw Error("cudaGraphExecDestroy", "cudaErrorInvalidResourceHandle", "not a graph of this device", __FILE__,
                    __LINE__);
}

bool HostStreams::capturing() const {
    for (const auto& [handle, s] : streams_)
        if (s->capture) return true;
    return false;
}

bool HostStreams::capturing(Stream stream) const {
    require(stream, "capturing");
    return streams_.at(stream)->capture != nullptr;
}

void HostStreams::refuse_during_capture(const char* call, const char* file, int line) {
    for (auto& [handle, s] : streams_)
        if (s->capture && s->capture_invalidated_by.empty()) s->capture_invalidated_by = call;
    throw Error(call, "cudaErrorStreamCaptureUnsupported",
                "not permitted while a stream captures a graph (the capture is now invalid)", file, line);
}

}  // namespace carbon::gpu::host_seam
