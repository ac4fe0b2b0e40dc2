import Foundation
import Testing

/// Issue 29, 2: `make test` is quiet, and no fragment of a test's event slips through. Its filter
/// (scripts/quiet-test-output.awk) runs here over logs in swift-testing's shapes, taken from real
/// runs: names and arguments that span lines (CR LF and blank lines included, one argument line
/// ending "started."), and failures of the same shapes, which must stay whole.
@Suite("make test's output filter")
struct TestOutputFilterTests {
    static let script = CLIRunner.repositoryRoot.appendingPathComponent("scripts/quiet-test-output.awk")

    /// The filter's output for `log`, line by line.
    static func filter(_ log: String) throws -> [String] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("rd-filter-\(UUID().uuidString).log")
        try Data(log.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }  // best effort: a temporary file
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["awk", "-f", script.path, input.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "awk: \(String(decoding: data, as: UTF8.self))")
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The lines every run prints that the filter keeps.
    static let header = """
        Building for debugging...
        Build complete! (0.45s)
        Test Suite 'All tests' started at 2026-12-03 14:42:46.903
        Test Suite 'debug.xctest' passed at 2026-12-03 14:42:46.946
        \t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds
        ◇ Test run started.
        ↳ Testing Library Version: 6.3.1 (937120cbc281cf2)
        """

    @Test func aPassingRunShowsSuitesAndTheSummaryOnly() throws {
        let log = Self.header + "\n" + """
            Test Case '-[ReceiptDeskCLITests.Legacy testOne]' started.
            Test Case '-[ReceiptDeskCLITests.Legacy testOne]' passed (0.002 seconds).
            ◇ Suite "A suite
            split" started.
            ◇ Test "display
            name on two lines" started.
            ◇ Test passes(_:) started.
            ◇ Test case passing 1 argument text → "GET /\r
            \r
            " to passes(_:) started.
            ◇ Test case passing 1 argument text → "one
            two started.
            three" to passes(_:) started.
            ◇ Test case passing 2 arguments input → "{
              "status": 0,
              "receipt": {"in_app": [}
            }", expected → "JSON input: not valid JSON" to "each error says what and where" started.
            ◇ Test case passing 1 argument text → "plain" to passes(_:) started.
            ✔ Test "display
            name on two lines" passed after 0.053 seconds.
            ✔ Test passes(_:) with 4 test cases passed after 0.056 seconds.
            ✔ Suite "A suite
            split" passed after 0.056 seconds.
            ✔ Suite "B" passed after 0.056 seconds.
            ✔ Test run with 2 tests in 2 suites passed after 0.056 seconds.
            """
        let shown = try Self.filter(log)
        #expect(shown == [
            "Building for debugging...", "Build complete! (0.45s)",
            "Test Suite 'debug.xctest' passed at 2026-12-03 14:42:46.946",
            "\t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds",
            "↳ Testing Library Version: 6.3.1 (937120cbc281cf2)",
            "✔ Suite \"A suite", "split\" passed after 0.056 seconds.",
            "✔ Suite \"B\" passed after 0.056 seconds.",
            "✔ Test run with 2 tests in 2 suites passed after 0.056 seconds.",
        ])
    }

    @Test func aFailureStaysWholeAndAnUnfinishedEventEndsAtTheNext() throws {
        let failure = """
            ✘ Test fails(_:) recorded an issue with 1 argument text → "bad
            line" at T.swift:4:72: Expectation failed: !((text → "bad
            line").contains("\\n" →
            ) → true)
            ↳ has a
              break
            ✘ Test "failing display
            name" failed after 0.053 seconds with 1 issue.
            /work/Tests/X.swift:12: error: -[ReceiptDeskCLITests.Legacy testTwo] : XCTAssertTrue failed
            Test Case '-[ReceiptDeskCLITests.Legacy testTwo]' failed (0.004 seconds).
            """
        let log = """
            ◇ Test case passing 1 argument text → "bad
            line" to fails(_:) started.
            \(failure)
            ◇ Test case passing 1 argument text → "cut short
            by a log that ends early
            ✘ Test run with 4 tests in 1 suite failed after 0.056 seconds with 2 issues.
            """
        let shown = try Self.filter(log)
        // An event left unfinished ends at the next one: it hides nothing past it.
        #expect(shown == failure.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    + ["✘ Test run with 4 tests in 1 suite failed after 0.056 seconds with 2 issues."])
        let printed = try Self.filter("◇ Test foo() started.\nsomething a test printed\n✔ Test foo() passed after 0.1 seconds.\n")
        #expect(printed == ["something a test printed"])
    }

    @Test func makeTestAndTestSanitizedFilterThroughTheScript() throws {
        let makefile = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        #expect(makefile.contains("TEST_QUIET := awk -f scripts/quiet-test-output.awk"))
        #expect(makefile.components(separatedBy: "$(SWIFT) test").count - 1 == 2, "make test and make test-sanitized run swift test")
        #expect(makefile.components(separatedBy: "| $(TEST_QUIET)").count - 1 == 2, "each pipes it through the filter")
        #expect(!makefile.contains("grep --line-buffered -vE"), "the line-by-line filter is gone")
    }
}
