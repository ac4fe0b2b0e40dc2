import Foundation
import ReceiptCore

/// Reads command input from a file or standard input, never more than the decoder's limit.
enum InputReader {
    /// The bytes of `path` (or standard input for "-"), refusing anything over 16 MiB.
    static func read(_ path: String) throws -> [UInt8] {
        do {
            return try path == "-" ? InputFile.readStandardInput() : InputFile.read(path)
        } catch {
            throw CommandFailure(status: .badInput, message: error.message)
        }
    }
}
