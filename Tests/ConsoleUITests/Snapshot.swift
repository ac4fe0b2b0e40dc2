import ConsoleUI
import Foundation
import Testing

/// Snapshot files under `Tests/ConsoleUITests/Snapshots/`: the text of a virtual screen and its
/// attribute layers in 256 colours and in monochrome. Compared on every run; `RECORD_SNAPSHOTS=1`
/// writes them instead.
enum Snapshot {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    static var recording: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" }

    /// Draws the controller on a colour and a monochrome screen of `size`, checks both show the
    /// same text, and compares (or records) `name-COLSxROWS.txt`.
    static func check(_ name: String, _ controller: ConsoleController, size: ScreenSize,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        let colour = VirtualScreen(size: size, theme: .colour256)
        let mono = VirtualScreen(size: size, theme: .monochrome)
        controller.render(on: colour)
        controller.render(on: mono)
        #expect(colour.text == mono.text, "\(name): the monochrome screen shows other words than the colour one", sourceLocation: sourceLocation)
        let content = "== \(name)\n" + colour.snapshot(themes: [.colour256]) + mono.snapshot(themes: [.monochrome])
            .split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("== attributes") }.joined(separator: "\n")
        let file = folder.appendingPathComponent("\(name)-\(size.columns)x\(size.rows).txt")
        if recording {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)  // exists after the first run
            #expect(throws: Never.self, sourceLocation: sourceLocation) { try content.write(to: file, atomically: true, encoding: .utf8) }
            return
        }
        guard let recorded = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("no snapshot \(file.lastPathComponent): run with RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
            return
        }
        if recorded != content {
            let old = recorded.split(separator: "\n", omittingEmptySubsequences: false)
            let new = content.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
            let line = { (lines: [Substring]) in first < lines.count ? String(lines[first]) : "(end)" }
            Issue.record("""
                snapshot \(file.lastPathComponent) differs at line \(first + 1):
                  recorded: \(line(old))
                  now:      \(line(new))
                (RECORD_SNAPSHOTS=1 re-records after a deliberate change)
                """, sourceLocation: sourceLocation)
        }
    }
}
