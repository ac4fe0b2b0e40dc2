import Foundation
import Testing

/// Issue 29, 1: the README is a contract. Every `sh` block of its "The command line" section is
/// run, line by line and in order, against a fresh demo (as `eval "$(make -s demo-env)"` sets
/// it up), and each command must exit as the README shows: 0, or the status its trailing
/// `# exit N` names. A line marked `# not run: REASON` is left out, visibly; comment lines and
/// continuation lines (starting with `#` or a space) are not commands.
@Suite("README contract")
struct ReadmeContractTests {
    /// One command of the README, with what it should exit with.
    struct Example: CustomStringConvertible {
        let line: Int
        let command: String
        let expectedStatus: Int32
        var description: String { "README.md:\(line): \(command)" }
    }

    static let section = "## The command line"

    /// The examples of `section`, in order; the lines marked `not run` are counted apart.
    static func examples(_ readme: String) throws -> (run: [Example], notRun: Int) {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: section) else { throw CocoaError(.fileReadCorruptFile) }
        var examples: [Example] = []
        var notRun = 0
        var fence: String?  // the info string of the open block
        for index in (start + 1)..<lines.count {
            let line = lines[index]
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("```") {
                fence = fence == nil ? String(line.dropFirst(3)) : nil
                continue
            }
            guard fence == "sh", !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(" ") else { continue }
            let comment = line.range(of: " # ").map { String(line[$0.upperBound...]) } ?? ""
            if comment.hasPrefix("not run: ") { notRun += 1; continue }
            var status: Int32 = 0
            if comment.hasPrefix("exit "), let code = Int32(comment.dropFirst(5).prefix { $0.isNumber }) { status = code }
            examples.append(Example(line: index + 1, command: line, expectedStatus: status))
        }
        return (examples, notRun)
    }

    @Test func everyCommandLineExampleRunsAsWritten() throws {
        let readme = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let (examples, notRun) = try Self.examples(readme)
        #expect(examples.count >= 40, "only \(examples.count) examples found: are the blocks still marked ```sh?")
        #expect(notRun <= 12, "\(notRun) examples are marked not run")
        let demo = try DemoWorkspace()
        for example in examples {
            let output = try demo.shell(example.command)
            #expect(output.status == example.expectedStatus,
                    "\(example): exit \(output.status), the README shows \(example.expectedStatus)\n\(output.stderr.suffix(600))")
            #expect(!output.terminatedBySignal, "\(example): killed by a signal")
        }
    }

    @Test func theParserTakesMarkersAndSkipsCommentsAndOtherBlocks() throws {
        let text = """
        ## The command line
        ```sh
        receiptdesk conflicts            # transactions claimed twice
                                         # more words
        receiptdesk order fail o-9 --reason x   # exit 65
        receiptdesk serve --tokens t     # not run: it serves until SIGTERM
        ```
        ```json
        {"not": "a command"}
        ```
        ## Database and configuration
        ```sh
        receiptdesk db init
        ```
        """
        let (examples, notRun) = try Self.examples(text)
        #expect(examples.map(\.command) == ["receiptdesk conflicts            # transactions claimed twice",
                                            "receiptdesk order fail o-9 --reason x   # exit 65"])
        #expect(examples.map(\.expectedStatus) == [0, 65])
        #expect(notRun == 1)
    }
}
