// The host device seam's streams, events and graphs: work is queued and runs only when something
// waits for it, so a result read before its synchronize is stale in the tests. Test infrastructure.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/device.h"

namespace carbon::gpu::host_seam {

// One operation issued on a stream.
struct Work {
    std::string what;           // for messages: "cudaMemcpyAsync (device to host) of 64 bytes"
    std::function<void()> run;  // its checks and its effect; may throw
};

// Work issued on a stream runs, in issue order, when a stream, event or device synchronize needs it
// (on the calling thread). A stream that waits for an event runs the recording stream up to the
// record first; a capture records a stream's work into a graph instead of queueing it; a graph launch
// queues the recorded work again. Streams are drained in creation order. One host thread drives it.
class HostStreams {
public:
    HostStreams() = default;
    HostStreams(const HostStreams&) = delete;
    HostStreams& operator=(const HostStreams&) = delete;

    Stream create_stream();
    // Runs the stream's queued work, then forgets the stream.
    void destroy_stream(Stream stream);
    bool owns(Stream stream) const { return streams_.count(stream) != 0; }
    // Throws gpu::Error(call, cudaErrorInvalidResourceHandle) for a stream this object did not make.
    void require(Stream stream, const char* call) const;
    std::vector<Stream> streams() const;

    // Queues `work` on the stream, or appends it to the stream's open capture.
    void enqueue(Stream stream, Work work);
    std::size_t pending(Stream stream) const;  // queued, not yet run

    // Run queued work. An operation that throws fails the call: gpu::Error naming `call` and the
    // operation, with the operation's status (cudaErrorLaunchFailure for a kernel's fault). That error
    // is sticky, as a GPU fault is: the queues are dropped and every later call fails with it.
    void stream_synchronize(Stream stream, const char* call);
    void device_synchronize(const char* call);

    Event create_event();
    void destroy_event(Event event);
    void event_record(Event event, Stream stream);
    void stream_wait_event(Stream stream, Event event);
    void event_synchronize(Event event, const char* call);

    void begin_capture(Stream stream);
    Graph end_capture(Stream stream);
    void launch_graph(Graph graph, Stream stream);
    void destroy_graph(Graph graph);
    bool capturing() const;  // any stream
    bool capturing(Stream stream) const;
    // A call CUDA forbids while a capture is open: every open capture becomes invalid (end_capture
    // fails) and this throws gpu::Error(call, cudaErrorStreamCaptureUnsupported).
    [[noreturn]] void refuse_during_capture(const char* call, const char* file, int line);

    // Throws the sticky error (naming `call`) if an earlier operation failed when it ran.
    void check_sticky(const char* call) const;

    // Drops all queued work without running it (the device is going away).
    void discard();

private:
    struct RecordState {
        bool done = false;
        Stream stream = nullptr;
    };
    struct StreamState {
        std::deque<Work> queue;
        std::shared_ptr<std::vector<Work>> capture;  // open capture, or null
        std::string capture_invalidated_by;          // why the open capture is invalid, or empty
    };
    struct EventState {
        std::shared_ptr<RecordState> last;  // the latest record, or null if never recorded
    };
    struct GraphState {
        std::shared_ptr<const std::vector<Work>> work;
        Stream captured_on = nullptr;
    };

    StreamState& state(Stream stream, const char* call);
    EventState& event_state(Event event, const char* call);
    void run_one(StreamState& s);
    void run_until(const RecordState& record);
    // Runs `drain` and turns an exception from the work into the sticky gpu::Error naming `call`.
    void guarded(const char* call, const std::function<void()>& drain);

    std::unordered_map<Stream, std::unique_ptr<StreamState>> streams_;
    std::vector<Stream> order_;  // creation order: device_synchronize's order, the same every run
    std::unordered_map<Event, std::unique_ptr<EventState>> events_;
    std::unordered_map<Graph, std::unique_ptr<GraphState>> graphs_;
    std::optional<Error> sticky_;
};

}  // namespace carbon::gpu::host_seam
