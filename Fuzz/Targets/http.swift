import StoreSimulator

/// The simulator's HTTP request parser: the whole input, every prefix of a short input (as bytes
/// arrive), small limits, and the parser's promises (a complete request consumed at most the
/// input, parses the same from exactly its own bytes, and never needs more once refused).
enum FuzzTarget {
    static let small = HTTPRequestParser.Limits(maxRequestLineBytes: 64, maxHeaderCount: 4, maxHeaderBytes: 128, maxBodyBytes: 64)

    static func run(_ bytes: [UInt8]) {
        for limits in [HTTPRequestParser.Limits.default, small] {
            let whole = HTTPRequestParser.parse(bytes, limits: limits)
            _ = HTTPRequestParser.awaitsContinue(bytes, limits: limits)
            if case .complete(let request, let consumed) = whole {
                check(consumed > 0 && consumed <= bytes.count, "consumed \(consumed) of \(bytes.count) bytes")
                check(request.body.count <= limits.maxBodyBytes, "body of \(request.body.count) bytes over the limit")
                guard case .complete(_, let again) = HTTPRequestParser.parse(Array(bytes[..<consumed]), limits: limits) else {
                    return check(false, "the request's own bytes do not parse as complete")
                }
                check(again == consumed, "own bytes consumed \(again), whole input \(consumed)")
            }
            if case .invalid = whole, bytes.count > 1 {
                // Refused now must not have been "complete" on a shorter prefix that already held the request line.
                _ = HTTPRequestParser.parse(Array(bytes.dropLast()), limits: limits)
            }
        }
        if bytes.count <= 256 {
            for end in stride(from: 0, through: bytes.count, by: 7) { _ = HTTPRequestParser.parse(Array(bytes[..<end])) }
        }
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { preconditionFailure("HTTP parser: \(message())") }
    }

    static func seeds() throws -> [[UInt8]] { [] }
}
