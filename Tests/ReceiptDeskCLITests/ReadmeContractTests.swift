import Foundation
import Testing

/// Issue 29, 1: the README is a contract. Every `sh` block of its "The command line" section is
/// run, line by line and in order, against a fresh demo (as `eval "$(make -s demo-env)"` sets
/// it up), and each command must exit as the README shows: 0, or the status its trailing
/// `# exit N` names. Where the README shows output, a line `# → TEXT` right below a command (or
/// its continuation lines), the command must print a line that matches TEXT, `…` standing for any
/// run of characters. A line marked `# not run: REASON` is left out, visibly; comment lines and
/// continuation lines (starting with `#` or a space) are not commands.
@Suite("README contract")
struct ReadmeContractTests {
    /// One command of the README, with what it should exit with.
    struct Example: CustomStringConvertible {
        let line: Int
        let command: String
        let expectedStatus: Int32
        /// The `# → TEXT` lines below it: each must match a line it prints.
        var expectedOutput: [String] = []
        var description: String { "README.md:\(line): \(command)" }
    }

    static let outputMarker = "# → "

    /// Whether `line` matches `pattern`, in which `…` stands for any run of characters.
    static func matches(_ line: String, _ pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard pieces.count > 1 else { return line == pattern }
        guard let first = pieces.first, let last = pieces.last, line.hasPrefix(first), line.hasSuffix(last),
              line.count >= first.count + last.count else { return false }
        var rest = line.dropFirst(first.count).dropLast(last.count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    static let section = "## The command line"

    /// The examples of `section`, in order; the lines marked `not run` are counted apart.
    static func examples(_ readme: String) throws -> (run: [Example], notRun: Int) {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: section) else { throw CocoaError(.fileReadCorruptFile) }
        var examples: [Example] = []
        var notRun = 0
        var fence: String?  // the info string of the open block
        var outputOf: Int?  // the example that a `# → ` line below belongs to
        for index in (start + 1)..<lines.count {
            let line = lines[index]
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("```") {
                fence = fence == nil ? String(line.dropFirst(3)) : nil
                outputOf = nil
                continue
            }
            guard fence == "sh", !line.isEmpty else { continue }
            if line.hasPrefix(outputMarker) {
                guard let owner = outputOf else { throw ReadmeProblem(line: index + 1, "a `# → ` output line below no command that is run") }
                examples[owner].expectedOutput.append(String(line.dropFirst(outputMarker.count)))
                continue
            }
            if line.hasPrefix(" ") { continue }  // a continuation of the comment above: the same owner
            outputOf = nil
            guard !line.hasPrefix("#") else { continue }
            let comment = line.range(of: " # ").map { String(line[$0.upperBound...]) } ?? ""
            if comment.hasPrefix("not run: ") { notRun += 1; continue }
            outputOf = examples.count
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
            let printed = (output.stdout + output.stderr).split(separator: "\n").map(String.init)
            for expected in example.expectedOutput {
                #expect(printed.contains { Self.matches($0, expected) },
                        "\(example): the README shows it printing \"\(expected)\"; it printed:\n\(printed.joined(separator: "\n").suffix(800))")
            }
        }
        #expect(examples.contains { !$0.expectedOutput.isEmpty }, "no example shows its output (# → lines)")
    }

    /// A README line the contract cannot read.
    struct ReadmeProblem: Error, CustomStringConvertible {
        let line: Int
        let problem: String
        init(line: Int, _ problem: String) { self.line = line; self.problem = problem }
        var description: String { "README.md:\(line): \(problem)" }
    }

    @Test func theParserTakesMarkersAndSkipsCommentsAndOtherBlocks() throws {
        let text = """
        ## The command line
        ```sh
        receiptdesk conflicts            # transactions claimed twice
                                         # more words
        # → no open conflict
        receiptdesk order fail o-9 --reason x   # exit 65
        # → receiptdesk order fail: …o-9…
        # → …
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
        #expect(examples.map(\.expectedOutput) == [["no open conflict"], ["receiptdesk order fail: …o-9…", "…"]])
        #expect(notRun == 1)
        for orphan in ["```sh\n# → printed by nobody\n```", "```sh\nreceiptdesk serve   # not run: x\n# → x\n```",
                       "```sh\nreceiptdesk conflicts\n# a comment between\n# → x\n```"] {
            #expect(throws: ReadmeProblem.self, "\(orphan)") { try Self.examples("## The command line\n" + orphan) }
        }
    }

    @Test func anOutputLineMatchesWithEllipsesForAnyText() {
        #expect(Self.matches("alice: pro granted until 2027-01-02T14:48:49.193Z", "alice: pro granted until …"))
        #expect(Self.matches("r.b64: unified, PRODUCTION, valid — receipt #79: 1 recorded", "r.b64: …, valid — receipt #…: 1 recorded"))
        #expect(Self.matches("exactly this", "exactly this"))
        #expect(Self.matches("anything", "…"))
        #expect(!Self.matches("alice: nothing newly granted", "alice: pro granted until …"))
        #expect(!Self.matches("exactly this, and more", "exactly this"))
        #expect(!Self.matches("ab", "ab…b"), "the start and the end may not overlap")
        #expect(!Self.matches("a-c-b", "a…x…b"))
    }
}
