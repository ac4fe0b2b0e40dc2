/// What went wrong in the HTTP service, as a code and a one-line reason that says what and where
/// ("limits: maxConnections is 0; the service needs at least 1"). Errors compare equal on their
/// code alone, so tests match the kind of failure, not the wording.
public struct HTTPServiceError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: String, Sendable {
        /// A configuration value is out of range or malformed (a limit of 0, a host that is not a
        /// numeric IPv4 or IPv6 address).
        case invalidConfiguration
        /// libmicrohttpd refused to start: the port is in use, the address is not on this machine,
        /// threads could not be created. The reason carries what libmicrohttpd logged.
        case startFailed
        /// The server was started twice, or started after it was stopped.
        case lifecycle
        /// A metric or label name breaks the exposition format's rules, or a name is registered twice.
        case invalidMetric
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
    public static func == (lhs: HTTPServiceError, rhs: HTTPServiceError) -> Bool { lhs.code == rhs.code }
}
