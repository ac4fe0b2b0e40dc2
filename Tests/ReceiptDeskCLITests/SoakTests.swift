import Foundation
import Testing

/// A short soak of the real binary on SQLite (`make soak` runs long ones on both backends): the
/// simulator with random faults, re-verification, two operator processes and the random-key
/// console at once, then every invariant check must pass.
@Suite("Soak")
struct SoakTests {
    @Test func aShortSoakPassesEveryCheck() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soak-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort
        let output = try CLIRunner.run(["soak", "--seconds", "10", "--customers", "20", "--folder", folder.path])
        #expect(output.status == 0, "soak failed:\n\(output.stdout)\n\(output.stderr.suffix(2_000))")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("soak passed") })
        #expect(!lines.contains { $0.hasPrefix("✗") }, "\(output.stdout)")
        for check in ["PRAGMA integrity_check", "audit verify", "no transaction owned twice", "no grant in force twice",
                      "memory stayed bounded", "batch re-verification ran", "the console took random keys"] {
            #expect(lines.contains { $0.hasPrefix("✓ " + check) }, "no passing check \(check):\n\(output.stdout)")
        }
    }

    @Test func nonsenseDurationsAreUsageErrors() throws {
        for seconds in ["0", "-5", "lots", "100000"] {
            let output = try CLIRunner.run(["soak", "--seconds", seconds])
            #expect(output.status == 64, "--seconds \(seconds): \(output.stderr)")
        }
    }
}
