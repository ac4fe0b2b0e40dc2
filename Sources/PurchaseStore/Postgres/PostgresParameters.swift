import CLibPQ
import Foundation

/// A statement's parameters as libpq takes them: text format, types inferred by the server,
/// except blobs (binary `bytea`). Encoded once, so a pipeline can check every statement's
/// parameters before it sends the first. Text with a NUL byte is refused: PostgreSQL text
/// cannot hold one.
struct PostgresParameters {
    private var buffer: [UInt8] = []
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []
    private var types: [Oid] = []

    init(_ parameters: [SQLValue]) throws {
        for (index, value) in parameters.enumerated() {
            var bytes: [UInt8]
            var binary = false
            switch value {
            case .null:
                offsets.append(nil); lengths.append(0); formats.append(0); types.append(0)
                continue
            case .integer(let number): bytes = Array(String(number).utf8)
            case .real(let number): bytes = Array("\(number)".utf8)
            case .text(let text):
                bytes = Array(text.utf8)
                guard !bytes.contains(0) else {
                    throw StoreError(.invalidInput, "parameter \(index + 1) holds a NUL character, which PostgreSQL text cannot store")
                }
            case .blob(let blob):
                bytes = blob
                binary = true
            }
            offsets.append(buffer.count)
            lengths.append(Int32(bytes.count))
            formats.append(binary ? 1 : 0)
            types.append(binary ? 17 : 0)  // 17 = bytea; 0 = let the server infer from the context
            buffer += bytes
            if !binary { buffer.append(0) }
        }
        buffer.append(0)  // never empty, so the base address below exists
    }

    /// Calls `body` with the count, types, values, lengths and formats libpq's calls take; the
    /// pointers live only during the call (libpq copies what it sends).
    func withPointers<R>(_ body: (Int32, [Oid], [UnsafePointer<CChar>?], [Int32], [Int32]) -> R) -> R {
        buffer.withUnsafeBytes { raw in
            let base = raw.baseAddress
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.flatMap { offset in base.map { ($0 + offset).assumingMemoryBound(to: CChar.self) } }
            }
            return body(Int32(offsets.count), types, pointers, lengths, formats)
        }
    }
}
