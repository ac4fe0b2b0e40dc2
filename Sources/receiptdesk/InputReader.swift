import Foundation
import ReceiptCore

/// Reads command input from a file or standard input, never more than the decoder's limit.
enum InputReader {
    /// The bytes of `path` (or standard input for "-"), refusing anything over 16 MiB.
    static func read(_ path: String) throws -> [UInt8] {
        let limit = ReceiptDecoder.maxInputSize
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure(status: .badInput, message: "\(path): no such file")
            }
            guard !isDirectory.boolValue else { throw CommandFailure(status: .badInput, message: "\(path): is a directory") }
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure(status: .badInput, message: "\(path): cannot be read")
            }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }  // closing a read-only file cannot lose data
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw CommandFailure(status: .badInput, message: "\(path): read failed: \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { return bytes }
            bytes += chunk
        }
        throw CommandFailure(status: .badInput, message: "\(path == "-" ? "standard input" : path): over the \(limit / 1024 / 1024) MiB input limit")
    }
}
