import Foundation

/// The error the simulator's server side throws: a `code` to match on and a one-line reason that
/// says what was wrong and where. Equality compares the code only.
///
/// Receipt and JWS problems inside the simulator still surface as the core's `ReceiptError`;
/// this type covers what only a server has: addresses, sockets and saved state.
public struct SimulatorError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: String, Sendable {
        /// The host asked for is not a loopback address (127.0.0.0/8 or ::1).
        case notLoopback
        /// A socket call failed (bind: address in use, listen, …).
        case socket
        /// The server was started twice, or started after it was stopped.
        case lifecycle
        /// Saved simulator state or a saved authority could not be written or read back.
        case persistence
        /// The simulator was asked for something it cannot do (an unknown transaction to renew, …).
        case invalidRequest
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong and where, one line.
    public let reason: String

    /// An error with a code and a one-line reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }

    /// Whether both errors have the same code (the reasons may differ).
    public static func == (lhs: SimulatorError, rhs: SimulatorError) -> Bool { lhs.code == rhs.code }
}
