/// The one error type of ReceiptCore: a machine-readable `code` and a human `reason` that says
/// what was wrong and where ("unified receipt: field 1704 (purchase date) is not RFC 3339: '…'").
///
/// Equality compares the code only, so tests can match on the kind of failure while the message
/// stays free to carry detail.
public struct ReceiptError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: String, Sendable {
        /// The input ended before a value was complete.
        case truncated
        /// A value had a different ASN.1 tag or JSON type than the grammar requires.
        case unexpectedTag
        /// Bytes followed a complete value where none may.
        case trailingBytes
        /// A length field was malformed or larger than the input.
        case badLength
        /// Nesting went deeper than the configured limit.
        case tooDeep
        /// The input, or a count inside it, is over a size limit.
        case tooLarge
        /// Base64 or base64url text could not be decoded.
        case badBase64
        /// Text that must be UTF-8 was not.
        case badUTF8
        /// A field held a value of the right type but an invalid content (a date, an OID, a number).
        case badValue
        /// A required field is missing.
        case missingField
        /// The bytes are not any format this decoder knows.
        case unknownFormat
        /// A cryptographic operation could not be performed (a broken key, an unsupported algorithm).
        case crypto
        /// The configuration (trust anchors, certificates given on the command line) is broken.
        case configuration
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong and where, one line.
    public let reason: String

    /// Creates an error with a code and a one-line reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: ReceiptError, rhs: ReceiptError) -> Bool { lhs.code == rhs.code }

    /// The same error with `context` put in front of the reason ("unified receipt: " + reason).
    func prefixed(_ context: String) -> ReceiptError {
        ReceiptError(code, context + ": " + reason)
    }
}
