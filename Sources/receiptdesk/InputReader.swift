import Foundation
import ReceiptCore

/// Reads command input from a file or standard input, never more than the decoder's limit.
enum InputReader {
    /// The bytes of `path` (or standard input for "-"), refusing anything over 16 MiB.
    static func read(_ path: String) throws -> [UInt8] {
        let limit = ReceiptDecoder.maxInputSize
        guard path == "-" else {
            do { return try InputFile.read(path, limit: limit) } catch { throw CommandFailure(status: .badInput, message: error.message) }
        }
        let handle = FileHandle.standardInput
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw CommandFailure(status: .badInput, message: "standard input: read failed: \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { return bytes }
            bytes += chunk
        }
        throw CommandFailure(status: .badInput, message: "standard input: over the \(limit / 1024 / 1024) MiB input limit")
    }
}
