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

    /// No parameters.
    static let none = PostgresParameters()

    private init() { buffer = [0] }

    /// Encodes `parameters`; refuses text holding a NUL (see `check`).
    init(_ parameters: [SQLValue]) throws {
        offsets.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        types.reserveCapacity(parameters.count)
        buffer.reserveCapacity(parameters.count * 16)
        for (index, value) in parameters.enumerated() {
            let start = buffer.count
            var binary = false
            switch value {
            case .null:
                offsets.append(nil); lengths.append(0); formats.append(0); types.append(0)
                continue
            case .integer(let number): buffer.append(contentsOf: String(number).utf8)
            case .real(let number): buffer.append(contentsOf: "\(number)".utf8)
            case .text(let text):
                guard !Self.holdsNUL(text) else { throw Self.nulCharacter(index) }
                buffer.append(contentsOf: text.utf8)
            case .blob(let blob):
                buffer.append(contentsOf: blob)
                binary = true
            }
            offsets.append(start)
            lengths.append(Int32(buffer.count - start))
            formats.append(binary ? 1 : 0)
            types.append(binary ? 17 : 0)  // 17 = bytea; 0 = let the server infer from the context
            if !binary { buffer.append(0) }
        }
        buffer.append(0)  // never empty, so the base address below exists
    }

    /// Refuses what encoding would: text with a NUL character, which PostgreSQL text cannot hold.
    static func check(_ parameters: [SQLValue]) throws {
        for (index, value) in parameters.enumerated() {
            if case .text(let text) = value, holdsNUL(text) { throw nulCharacter(index) }
        }
    }

    /// Whether `text` holds a NUL byte: `memchr` over its UTF-8 (`withUTF8`: in place for a
    /// native string). Every text value of every statement passes here (a receipt's decoded
    /// JSON included).
    static func holdsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
    }

    private static func nulCharacter(_ index: Int) -> StoreError {
        StoreError(.invalidInput, "parameter \(index + 1) holds a NUL character, which PostgreSQL text cannot store")
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
