import Foundation
import Testing

/// Issue 29, 2: every option a command accepts is in its --help (one table, `CommandTable`,
/// feeds the parser's gate and the help), options the table lacks are refused, and --version,
/// global options, completions and the man page come from the same table.
@Suite("Command help")
struct CommandHelpTests {
    /// "PATH\tOPTION" for every command (hidden ones too), from the binary's own table.
    static func table() throws -> [(path: String, option: String)] {
        let output = try CLIRunner.run(["help", "--options"])
        try #require(output.status == 0, "\(output.stderr)")
        return output.stdout.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t").map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }

    @Test func everyDeclaredOptionIsInItsCommandsHelp() throws {
        let table = try Self.table()
        #expect(table.count > 150, "\(table.count) options")
        let paths = Set(table.map(\.path)).subtracting(["db bench-worker"])
        for path in paths.sorted() {
            let help = try CLIRunner.run(path.split(separator: " ").map(String.init) + ["--help"])
            #expect(help.status == 0, "\(path) --help: \(help.stderr)")
            for entry in table where entry.path == path {
                #expect(help.stdout.contains("\n  \(entry.option) ") || help.stdout.contains("\n  \(entry.option)\n"),
                        "\(path) --help does not explain \(entry.option)")
            }
        }
        let audit = try CLIRunner.run(["audit", "--help"]).stdout
        #expect(audit.contains("--expect SEQ:HASH"), "\(audit)")
        let mint = try CLIRunner.run(["simulator", "mint", "--help"]).stdout
        for option in ["--legacy-version", "--type", "--account", "--original-build"] { #expect(mint.contains("\n  \(option) "), "\(mint)") }
        #expect(mint.contains("default: production: the config's paid-to-free cutoff + 12"), "\(mint)")
    }

    /// Every option literal the command-line sources read is declared for some command: an
    /// option cannot be read (and so accepted) without its help.
    @Test func everyOptionTheSourcesReadIsDeclared() throws {
        let declared = Set(try Self.table().map(\.option)).union(["--help", "--version"])
        let folder = CLIRunner.repositoryRoot.appendingPathComponent("Sources/receiptdesk")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 30)
        let literal = try Regex(#""(--[a-z][a-z0-9-]*)""#)
        var read: [String: String] = [:]
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: literal) {
                if let name = match.output[1].substring { read[String(name)] = file }
            }
        }
        #expect(read.count > 100, "\(read.count) option literals found")
        for (name, file) in read.sorted(by: { $0.key < $1.key }) {
            #expect(declared.contains(name), "\(file) reads \(name), which no command declares in CommandTable")
        }
    }

    @Test func anOptionACommandDoesNotDeclareIsRefusedBeforeItRuns() throws {
        let paths = Set(try Self.table().map(\.path))
        for path in paths.sorted() {
            let output = try CLIRunner.run(path.split(separator: " ").map(String.init) + ["--no-such-option"])
            expectFailure(output, 64, "unknown option --no-such-option")
        }
        // Known elsewhere, not here: decode takes no --db.
        expectFailure(try CLIRunner.run(["decode", "x.b64", "--db", "x"]), 64, "unknown option --db (receiptdesk decode --help lists its options)")
    }

    @Test func versionAndDatabaseOptionsBeforeTheCommand() throws {
        let version = try CLIRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("receiptdesk "), "\(version.stdout)")
        #expect(try CLIRunner.run(["version"]).stdout == version.stdout)
        let workspace = try LedgerWorkspace()
        try workspace.createDatabase()
        let before = try CLIRunner.run(["--db", workspace.databasePath, "--config", workspace.configPath, "conflicts"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("no open conflicts"), "\(before.stdout)")
        let equals = try CLIRunner.run(["--db=\(workspace.databasePath)", "customer", "show", "nobody"])
        #expect(equals.stderr.contains("customer nobody not found"), "\(equals.stderr)")
        expectFailure(try CLIRunner.run(["--bogus", "conflicts"]), 64, "unknown option --bogus before the command")
        // The hint once, not twice.
        let unknown = try CLIRunner.run(["nope"])
        #expect(unknown.status == 64)
        #expect(unknown.errorLines.count == 1, "\(unknown.stderr)")
    }

    @Test func bashCompletesCommandsThenTheirOptions() throws {
        let script = try CLIRunner.run(["completions", "bash"])
        #expect(script.status == 0, "\(script.stderr)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rd-completions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // best effort: a temp folder
        let file = directory.appendingPathComponent("receiptdesk.bash")
        try Data(script.stdout.utf8).write(to: file)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let line = "source '\(file.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _receiptdesk; printf '%s\\n' \"${COMPREPLY[@]}\""
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", line]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["receiptdesk", "cust"]) == ["customer"])
        #expect(try Set(complete(["receiptdesk", "customer", ""])) == ["show", "add", "export", "note", "erase"])
        #expect(try complete(["receiptdesk", "customer", "add", "alice", "--na"]) == ["--name"])
        #expect(try complete(["receiptdesk", "--db", "x.sqlite", "simulator", "mint", "--original"]) == ["--original-build"])
        for shell in ["zsh", "fish"] {
            let other = try CLIRunner.run(["completions", shell])
            #expect(other.status == 0 && other.stdout.contains("original-build"), "\(shell): \(other.stderr)")
        }
        expectFailure(try CLIRunner.run(["completions", "tcsh"]), 64, "completions needs one of bash, zsh or fish")
    }

    @Test func theManPageIsRoffThatFormats() throws {
        let page = try CLIRunner.run(["man"])
        #expect(page.status == 0)
        #expect(page.stdout.hasPrefix(".TH RECEIPTDESK 1"), "\(page.stdout.prefix(100))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        process.arguments = ["-k", "-man", "-Tutf8", "-ww", "-z"]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(page.stdout.utf8))
        try input.fileHandleForWriting.close()
        let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(warnings.isEmpty, "groff: \(warnings.prefix(800))")
        #expect(page.stdout.contains("\\fB\\-\\-original\\-build\\fR"), "every option is in the page")
    }
}
