import Foundation

/// Reads a whole input file (a receipt, a notification, a list) or standard input, at most
/// `limit` bytes, with one `open`, one `fstat` and as few `read`s as the file needs: `receiptdesk
/// import FILE…` reads every file this way, and so does the import benchmark, which measures that
/// import. Through FileManager and FileHandle a 6 KB file cost 13 µs of CPU (an existence check,
/// a 1 MiB read buffer per call), this 7.5 µs.
public enum InputFile {
    /// Why a file could not be read, as one line naming it.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// The bytes of the file at `path`; fails when it does not exist, is a directory, cannot be
    /// read, or holds more than `limit` bytes (a file still growing is cut at the limit + 1 and
    /// refused, never read without end: a FIFO or a device reads in chunks until end of file).
    public static func read(_ path: String, limit: Int = ReceiptDecoder.maxInputSize) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw Failure(message: "\(path): no such file") }
            throw Failure(message: "\(path): cannot be read (\(String(cString: strerror(code))))")
        }
        defer { close(descriptor) }  // a read-only descriptor: closing it cannot lose data
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw Failure(message: "\(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        let kind = status.st_mode & S_IFMT
        if kind == S_IFDIR { throw Failure(message: "\(path): is a directory") }
        if kind == S_IFREG && Int(status.st_size) > limit { throw overLimit(path, limit) }
        return try readToEnd(descriptor, name: path, size: kind == S_IFREG ? Int(status.st_size) : nil, limit: limit)
    }

    /// Standard input to its end, at most `limit` bytes, named "standard input" when it fails.
    public static func readStandardInput(limit: Int = ReceiptDecoder.maxInputSize) throws(Failure) -> [UInt8] {
        try readToEnd(STDIN_FILENO, name: "standard input", size: nil, limit: limit)
    }

    private static func overLimit(_ name: String, _ limit: Int) -> Failure {
        Failure(message: "\(name): over the \(limit / 1024 / 1024) MiB input limit")
    }

    /// Reads `descriptor` to its end: a regular file's `size` plus one byte to see that it has not
    /// grown, anything else in chunks; refused once past `limit`.
    private static func readToEnd(_ descriptor: Int32, name: String, size: Int?, limit: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size.map { $0 + 1 } ?? 64 * 1024)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= limit else { throw overLimit(name, limit) }
                bytes.append(contentsOf: repeatElement(0, count: min(max(bytes.count, 64 * 1024), limit + 1 - bytes.count)))
            }
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(message: "\(name): read failed: \(String(cString: strerror(errno)))")
            }
            if got == 0 { break }
            filled += got
            if filled > limit { throw overLimit(name, limit) }
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
