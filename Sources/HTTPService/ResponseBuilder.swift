import CMicroHTTPD

/// Turns an `HTTPServerResponse` into a libmicrohttpd response (body copied, header fields
/// added), or says why it cannot be sent as given.
enum ResponseBuilder {
    /// Header fields libmicrohttpd writes itself from the body it holds.
    private static let framing: Set<String> = ["content-length", "transfer-encoding"]

    /// A response ready to queue (the caller destroys it after queueing), or the reason it
    /// cannot be made. `closing` adds `Connection: close`.
    static func make(_ response: HTTPServerResponse, closing: Bool) -> Result<OpaquePointer, Problem> {
        guard (200...999).contains(response.status) else {
            return .failure(Problem("status \(response.status) is not a final status (200…999)"))
        }
        for (name, value) in response.headers where !framing.contains(name.lowercased()) {
            guard isToken(name) else { return .failure(Problem("header name '\(name)' is not an HTTP token")) }
            guard !value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                return .failure(Problem("header '\(name)' has a line break or NUL in its value"))
            }
        }
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let made else { return .failure(Problem("libmicrohttpd could not allocate a \(response.body.count)-byte answer")) }
        var fields = response.headers.filter { !framing.contains($0.name.lowercased()) }
        if closing {
            fields.removeAll { $0.name.lowercased() == "connection" }
            fields.append(("Connection", "close"))
        }
        for (name, value) in fields where MHD_add_response_header(made, name, value) != MHD_Result.YES {
            MHD_destroy_response(made)
            return .failure(Problem("libmicrohttpd refused header '\(name)'"))
        }
        return .success(made)
    }

    /// Why a response could not be made.
    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether `name` is an RFC 9110 token (what a field name must be).
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
