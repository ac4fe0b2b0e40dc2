import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Reads a request's head out of libmicrohttpd once it has parsed it: the header fields
/// (MHD_HEADER_KIND), the query arguments (MHD_GET_ARGUMENT_KIND, already percent-decoded) and
/// the peer's address.
enum RequestHead {
    /// The request without its body.
    static func read(_ connection: OpaquePointer, method: String, path: String, version: String) -> HTTPServerRequest {
        let headers = Pairs()
        collect(connection, .HEADER_KIND, into: headers)
        var lowered: [String: String] = [:]
        for (name, value) in headers.items {
            let key = name.lowercased()
            lowered[key] = lowered[key].map { "\($0), \(value)" } ?? value
        }
        let query = Pairs()
        collect(connection, .GET_ARGUMENT_KIND, into: query)
        let peer = rd_mhd_client_address(connection).flatMap { SocketAddress.peer($0) }
        return HTTPServerRequest(method: method, path: path, query: query.items, loweredHeaders: lowered, body: [],
                                 version: version, peer: peer)
    }

    /// Name/value pairs gathered by the iterator below.
    private final class Pairs {
        var items: [(name: String, value: String)] = []
    }

    /// Appends every value of `kind` in the order libmicrohttpd keeps them (the order sent).
    private static func collect(_ connection: OpaquePointer, _ kind: MHD_ValueKind, into pairs: Pairs) {
        withExtendedLifetime(pairs) {
            _ = MHD_get_connection_values_n(connection, kind, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return MHD_Result.YES }
                let pairs = Unmanaged<Pairs>.fromOpaque(cls).takeUnretainedValue()
                let name = RequestHead.text(key, keySize)
                pairs.items.append((name, value.map { RequestHead.text($0, valueSize) } ?? ""))
                return MHD_Result.YES
            }, Unmanaged.passUnretained(pairs).toOpaque())
        }
    }

    /// `count` bytes at `pointer` as UTF-8 (an invalid sequence becomes U+FFFD, never a failure).
    fileprivate static func text(_ pointer: UnsafePointer<CChar>, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
