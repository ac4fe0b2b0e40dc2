import Foundation

/// What the server keeps for one request between libmicrohttpd's calls of its access handler
/// (the request's `con_cls`): created at the first call, retained once into `con_cls`, and
/// released once in MHD_OPTION_NOTIFY_COMPLETED, which libmicrohttpd calls for every request
/// whose access handler it called, however the request ends (answered, client gone, timed out,
/// daemon stopped).
///
/// libmicrohttpd calls the access handler and the completion callback of one connection one after
/// another, on that connection's thread (or, while it stops, after joining that thread), so the
/// context needs no lock.
final class RequestContext {
    /// The method token, for the exchange report.
    let method: String
    /// When the head had been read, for the exchange's duration.
    let started: ContinuousClock.Instant
    /// The request as read at the first call, without its body.
    var request: HTTPServerRequest?
    /// The body so far; never more than the limit. Emptied when handed to the handler.
    var body: [UInt8] = [] {
        didSet { received = max(received, body.count) }
    }
    /// Body bytes received.
    private(set) var received = 0
    /// The status queued, once one is.
    var status: Int?
    /// The route label of the answer ("refused" when the server answered for the handler).
    var route = "unmatched"
    /// Whether the server answered without calling the handler (the body is over the limit);
    /// later calls for this request then take no more bytes.
    var refused = false

    /// Contexts alive in this process: a test reads it to prove each one is released once.
    private static let live = LiveCount()
    /// The number of contexts not yet released.
    static var liveCount: Int { live.value }

    /// A context for a request whose head was read at `started`.
    init(method: String, started: ContinuousClock.Instant) {
        self.method = method
        self.started = started
        Self.live.add(1)
    }

    deinit { Self.live.add(-1) }
}
