import Foundation
import ReceiptCore

/// The JSON object a Server API request sends (PUT and POST endpoints), read strictly: a member
/// is accepted only with the JSON type Apple documents (an integer is a JSON number without a
/// fraction, not a string or a boolean). A body over `maxBytes`, or one that is not a JSON
/// object, is `400 4000000`; a wrong member throws the error the caller names for it.
struct ServerAPIRequestBody {
    /// The largest body accepted: 64 KiB.
    static let maxBytes = 64 * 1024

    private let values: [String: Any]

    init(_ request: HTTPServerRequest) throws {
        guard !request.body.isEmpty, request.body.count <= Self.maxBytes else { throw ServerAPIError.generalBadRequest }
        do {
            values = try JSONObject(parsing: request.body, what: "request body").values
        } catch {
            throw ServerAPIError.generalBadRequest
        }
    }

    /// Whether `key` is present and not null.
    func has(_ key: String) -> Bool { values[key] != nil && !(values[key] is NSNull) }

    /// An integer member inside `range`, else `error`.
    func integer(_ key: String, in range: ClosedRange<Int64>, else error: ServerAPIError) throws -> Int64 {
        guard let value = try optionalInteger(key, else: error), range.contains(value) else { throw error }
        return value
    }

    /// An integer member, nil when absent or null, else `error` for anything but an integer.
    func optionalInteger(_ key: String, else error: ServerAPIError) throws -> Int64? {
        guard has(key) else { return nil }
        guard let number = values[key] as? NSNumber, !Self.isBool(number) else { throw error }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 9.0e15 else { throw error }
        return number.int64Value
    }

    /// A boolean member, else `error`.
    func bool(_ key: String, else error: ServerAPIError) throws -> Bool {
        guard let value = try optionalBool(key, else: error) else { throw error }
        return value
    }

    /// A boolean member, nil when absent or null, else `error` for anything but a boolean.
    func optionalBool(_ key: String, else error: ServerAPIError) throws -> Bool? {
        guard has(key) else { return nil }
        guard let number = values[key] as? NSNumber, Self.isBool(number) else { throw error }
        return number.boolValue
    }

    /// A string member, else `error`.
    func string(_ key: String, else error: ServerAPIError) throws -> String {
        guard let value = try optionalString(key, else: error) else { throw error }
        return value
    }

    /// A string member of at most 1024 bytes, nil when absent or null, else `error`.
    func optionalString(_ key: String, else error: ServerAPIError) throws -> String? {
        guard has(key) else { return nil }
        guard let text = values[key] as? String, text.utf8.count <= 1024 else { throw error }
        return text
    }

    /// A lower-case UUID string member, else `error`.
    func uuid(_ key: String, else error: ServerAPIError) throws -> String {
        guard let uuid = UUID(uuidString: try string(key, else: error)) else { throw error }
        return uuid.uuidString.lowercased()
    }

    /// An array of at most 200 strings, nil when absent or null, else `error`.
    func optionalStrings(_ key: String, else error: ServerAPIError) throws -> [String]? {
        guard has(key) else { return nil }
        guard let list = values[key] as? [Any], list.count <= 200 else { throw error }
        return try list.map { item in
            guard let text = item as? String, text.utf8.count <= 16 else { throw error }
            return text
        }
    }

    /// JSONSerialization gives booleans the Objective-C type code "c" (char).
    private static func isBool(_ number: NSNumber) -> Bool { number.objCType.pointee == 0x63 }
}
