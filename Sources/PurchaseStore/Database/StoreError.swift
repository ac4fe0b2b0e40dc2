/// The one error type of PurchaseStore: a `code` and a one-line reason that says what to do.
/// Equality compares the code only.
public struct StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// Another process holds the database longer than the busy timeout: try again.
        case busy
        /// The database file cannot be opened or written.
        case cannotOpen
        /// The database was written by a newer receiptdesk.
        case schemaTooNew
        /// The database is damaged.
        case corrupt
        /// A constraint refused the change (unique, foreign key, check).
        case constraint
        /// Something named does not exist (customer, order, grant, conflict).
        case notFound
        /// The change is already there (same grant, order already failed): nothing was done.
        case alreadyExists
        /// The request makes no sense for the current state (revoking what is not held).
        case invalidRequest
        /// An argument is malformed (empty reason, bad date).
        case invalidInput
        /// Any other SQL error.
        case sql
        /// The audit log does not verify.
        case auditBroken
        /// The artefact decoded but did not verify (invalid, unsigned, unverifiable): nothing applied.
        case notVerified
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
}
