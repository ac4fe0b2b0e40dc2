import Foundation
import Testing
import ReceiptCore

@Suite("Reading an input file")
struct InputFileTests {
    /// A fresh folder for one test, removed afterwards by the caller.
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-inputfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func failure(_ body: () throws(InputFile.Failure) -> [UInt8]) -> String? {
        do { _ = try body(); return nil } catch { return error.message }
    }

    @Test func readsAFileWholeUpToItsLimit() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = dir.appendingPathComponent("receipt").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect(try InputFile.read(path) == bytes)
        #expect(try InputFile.read(path, limit: 150_000) == bytes, "exactly at the limit is read")
        let empty = dir.appendingPathComponent("empty").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(try InputFile.read(empty) == [])
    }

    @Test func refusesWhatItCannotReadInOneLineNamingThePath() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("big").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 2 * 1024 * 1024 + 1)))
        #expect(failure { () throws(InputFile.Failure) in try InputFile.read(path, limit: 2 * 1024 * 1024) } == "\(path): over the 2 MiB input limit")
        let missing = dir.appendingPathComponent("missing").path
        #expect(failure { () throws(InputFile.Failure) in try InputFile.read(missing) } == "\(missing): no such file")
        #expect(failure { () throws(InputFile.Failure) in try InputFile.read(missing + "/under") } == "\(missing)/under: no such file")
        #expect(failure { () throws(InputFile.Failure) in try InputFile.read(dir.path) } == "\(dir.path): is a directory")
    }

    /// A pipe has no size: it is read in chunks to its end, and one that goes past the limit is
    /// refused once the limit is passed, not read to its end.
    @Test func readsAPipeInChunksAndStopsPastTheLimit() throws {
        for (count, limit) in [(200_000, 1_000_000), (3 * 1024 * 1024, 1 * 1024 * 1024)] {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let writer = ends[1]
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                var sent = 0
                payload.withUnsafeBytes { buffer in
                    while sent < buffer.count {
                        let wrote = write(writer, buffer.baseAddress! + sent, buffer.count - sent)
                        if wrote <= 0 { break }
                        sent += wrote
                    }
                }
                close(writer)
                done.signal()
            }
            let path = "/proc/self/fd/\(ends[0])"
            if count <= limit {
                #expect(try InputFile.read(path, limit: limit) == payload)
            } else {
                #expect(failure { () throws(InputFile.Failure) in try InputFile.read(path, limit: limit) } == "\(path): over the 1 MiB input limit")
            }
            // Drained to its end before closing, so the writer never writes to a closed pipe.
            var rest = [UInt8](repeating: 0, count: 65_536)
            while rest.withUnsafeMutableBytes({ read(ends[0], $0.baseAddress, $0.count) }) > 0 {}
            close(ends[0])
            done.wait()
        }
    }
}
