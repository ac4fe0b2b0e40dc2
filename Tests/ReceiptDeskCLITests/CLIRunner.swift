import Foundation

/// Runs the real `receiptdesk` binary (built next to the test bundle) and captures what it prints.
enum CLIRunner {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
        /// True when the process died of a signal; `status` is then the signal number.
        var terminatedBySignal = false
    }

    static var binary: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receiptdesk")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return repositoryRoot.appendingPathComponent(".build/debug/receiptdesk")
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func sample(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Assets/Samples/\(name)").path
    }

    /// Runs the binary with `arguments`, feeding `input` on standard input; `environment` entries
    /// are added to the test process's own, and `directory` (default: the repository) is where it runs.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:], directory: URL? = nil) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? repositoryRoot
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self),
                      terminatedBySignal: process.terminationReason == .uncaughtSignal)
    }

    /// A binary started by `start`: its output goes to files (no pipe can fill up and stall it),
    /// so several can run at once, or one can be killed halfway.
    final class Running {
        let process: Process
        private let stdoutURL: URL
        private let stderrURL: URL

        private let gate: FileHandle?

        fileprivate init(process: Process, stdoutURL: URL, stderrURL: URL, gate: FileHandle?) {
            self.process = process
            self.stdoutURL = stdoutURL
            self.stderrURL = stderrURL
            self.gate = gate
        }

        /// Lets a process started with `gated: true` go on to run the binary.
        func open() {
            try? gate?.close()  // the waiting shell reads end-of-file and execs the binary
        }

        var pid: Int32 { process.processIdentifier }

        /// What it has printed on standard output so far.
        var stdoutSoFar: String { String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self) }
        var isRunning: Bool { process.isRunning }

        /// Sends `signal` (SIGKILL: no cleanup at all) to the process.
        func kill(_ signal: Int32) {
            _ = Foundation.kill(process.processIdentifier, signal)
        }

        /// Waits for the process to end and returns what it printed (the output files are removed).
        func wait() -> Output {
            open()
            process.waitUntilExit()
            let stdout = (try? Data(contentsOf: stdoutURL)) ?? Data()
            let stderr = (try? Data(contentsOf: stderrURL)) ?? Data()
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
            return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                          stderr: String(decoding: stderr, as: UTF8.self),
                          terminatedBySignal: process.terminationReason == .uncaughtSignal)
        }
    }

    /// Starts the binary with `arguments` (standard input empty) and returns at once; its output
    /// is written to files in `outputDirectory`. A `gated` start first runs a shell that waits
    /// for `Running.open()` and then execs the binary: opening several gates one after the other
    /// starts their binaries within microseconds, as a fork-and-exec loop cannot.
    /// `environment` entries are added to the test process's own environment.
    static func start(_ arguments: [String], outputDirectory: URL, gated: Bool = false,
                      environment: [String: String] = [:]) throws -> Running {
        let name = UUID().uuidString
        let stdoutURL = outputDirectory.appendingPathComponent("\(name).out")
        let stderrURL = outputDirectory.appendingPathComponent("\(name).err")
        guard FileManager.default.createFile(atPath: stdoutURL.path, contents: nil),
              FileManager.default.createFile(atPath: stderrURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: outputDirectory.path])
        }
        let out = try FileHandle(forWritingTo: stdoutURL)
        let err = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? out.close()  // the child holds its own copies
            try? err.close()
        }
        let process = Process()
        process.currentDirectoryURL = repositoryRoot
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = out
        process.standardError = err
        var gate: FileHandle?
        if gated {
            let pipe = Pipe()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "read -r _ ; exec \"$0\" \"$@\"", binary.path] + arguments
            process.standardInput = pipe
            gate = pipe.fileHandleForWriting
        } else {
            process.executableURL = binary
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return Running(process: process, stdoutURL: stdoutURL, stderrURL: stderrURL, gate: gate)
    }
}
