import Foundation
import ReceiptCore

/// One page of a paginated answer. The revision is opaque to clients (base64url of `o:<offset>`);
/// the last page's revision points past the end, where new transactions will appear.
struct Page {
    let items: [IssuedTransaction]
    let revision: String
    let hasMore: Bool

    init(_ list: [IssuedTransaction], revision: String?, size: Int) throws {
        var offset = 0
        if let revision {
            guard let bytes = try? Base64.decodeURL(revision, "revision"),  // any decoding failure is the same 4000005
                  let text = String(validating: bytes, as: UTF8.self), text.hasPrefix("o:"),
                  let value = Int(text.dropFirst(2)), value >= 0 else {
                throw ServerAPIError(status: 400, code: 4000005, message: "Invalid request revision.")
            }
            offset = min(value, list.count)
        }
        let end = offset + min(max(1, size), list.count - offset)
        items = Array(list[offset..<end])
        hasMore = end < list.count
        self.revision = Base64.encodeURL(Array("o:\(end)".utf8))
    }
}
