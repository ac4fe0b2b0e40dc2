import Foundation
import Testing

/// A small demo (`receiptdesk demo`, as `make run` builds it, with the fewest customers) in a
/// temporary folder, and a way to run the binary there as `eval "$(make -s demo-env)"` would:
/// RECEIPTDESK_DB and RECEIPTDESK_CONFIG name the demo, the folder is the working directory.
/// The folder is removed when the workspace goes away.
final class DemoWorkspace {
    let directory: URL
    var databasePath: String { directory.appendingPathComponent("demo/purchases.sqlite").path }
    var configPath: String { directory.appendingPathComponent("demo/config.json").path }
    /// What `make -s demo-env` exports, for this demo.
    var environment: [String: String] {
        ["RECEIPTDESK_DB": databasePath, "RECEIPTDESK_CONFIG": configPath,
         "PATH": CLIRunner.binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
    }

    init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let built = try CLIRunner.run(["demo", "--db", directory.appendingPathComponent("demo/purchases.sqlite").path, "--customers", "20"])
        try #require(built.status == 0, "demo: \(built.stderr)", sourceLocation: sourceLocation)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }  // best effort: a leftover temp folder is harmless

    /// Runs `receiptdesk ARGUMENTS` in the demo's folder with the demo's environment.
    @discardableResult
    func run(_ arguments: [String], input: Data? = nil) throws -> CLIRunner.Output {
        try CLIRunner.run(arguments, input: input, environment: environment, directory: directory)
    }

    /// Runs `line` with /bin/sh in the demo's folder with the demo's environment (receiptdesk on PATH).
    func shell(_ line: String) throws -> CLIRunner.Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rd-sh-\(UUID().uuidString).out")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("rd-sh-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil), FileManager.default.createFile(atPath: err.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: out.path])
        }
        defer {
            try? FileManager.default.removeItem(at: out)  // best effort: temporary files
            try? FileManager.default.removeItem(at: err)
        }
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try outHandle.close()
        try errHandle.close()
        process.waitUntilExit()
        return CLIRunner.Output(status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                                stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self),
                                terminatedBySignal: process.terminationReason == .uncaughtSignal)
    }
}
