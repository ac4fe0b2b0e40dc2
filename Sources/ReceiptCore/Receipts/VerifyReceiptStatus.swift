/// verifyReceipt's status codes: what each means and whether trying again can help.
public enum VerifyReceiptStatus {
    /// A one-line meaning of `status`.
    public static func meaning(_ status: Int64) -> String {
        switch status {
        case 0: return "valid"
        case 21000: return "the App Store could not read the JSON request"
        case 21001: return "undocumented status"
        case 21002: return "receipt-data was malformed or missing"
        case 21003: return "the receipt could not be authenticated"
        case 21004: return "the shared secret does not match the account's"
        case 21005: return "the receipt server is temporarily unavailable"
        case 21006: return "the receipt is valid but the subscription has expired"
        case 21007: return "a sandbox receipt was sent to production: resend to sandbox"
        case 21008: return "a production receipt was sent to sandbox: resend to production"
        case 21009: return "internal data access error"
        case 21010: return "the user account cannot be found or has been deleted"
        case 21100...21199: return "internal data access error (\(status))"
        default: return "unknown status \(status)"
        }
    }

    /// Whether resending the same request later can succeed (Apple's `is-retryable` overrides this
    /// for 21100–21199 when present).
    public static func isRetryable(_ status: Int64) -> Bool {
        switch status {
        case 21005, 21009, 21100...21199: return true
        default: return false
        }
    }
}
