import Foundation
import PurchaseStore
import Testing

/// Issue 29, section 3, on the real binary in tmux over the demo database: `console --search ada`
/// opens at the search with the customers' names beside their ids (at 80×24, then 200×60), a key
/// remapped in the config runs its command, and `e` writes into the configured export folder.
@Suite("Console desk end to end in tmux", .serialized)
struct ConsoleDeskEndToEndTests {
    @Test func searchAtStartNamesRemappedKeysAndTheExportFolder() throws {
        try #require(tmuxIsInstalled(), "tmux is not installed (/usr/bin/tmux): run make deps")
        let (folder, db) = try EndToEndTests.demoDatabase("console-desk-e2e", customers: nil)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort
        let configURL = folder.appendingPathComponent("config.json")
        var config = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: configURL)) as? [String: Any])
        let exports = folder.appendingPathComponent("exports").path
        config["console"] = ["exportFolder": exports, "keys": ["grant": "G"]]
        try JSONSerialization.data(withJSONObject: config).write(to: configURL)

        let tmux = EndToEndTests.Tmux()
        let console = ProcessInfo.processInfo.environment["RECEIPTDESK_CONSOLE_BINARY"] ?? EndToEndTests.binary.path
        let command = "cd '\(folder.path)' && env RECEIPTDESK_DB='\(db)' RECEIPTDESK_CONFIG='\(configURL.path)' USER=e2e-operator "
            + "'\(console)' console --search ada; echo __EXIT=$?; sleep 60"
        try tmux.run(["new-session", "-d", "-s", "e2e", "-x", "80", "-y", "24", command])
        // Opened at the search: the customers a name fragment found show their names.
        guard let narrow = tmux.wait(for: "Ada Lovelace") else {
            Issue.record("no names at the search at 80×24; the pane shows:\n\(tmux.capture())")
            return
        }
        #expect(narrow.contains("Customers · ") && narrow.contains("/ ada"), "\(narrow)")
        #expect(!narrow.contains("200000…"), "\(narrow)")
        try tmux.run(["resize-window", "-t", "e2e", "-x", "200", "-y", "60"])
        #expect(tmux.wait(for: "ada.lovelace") != nil, "no email at 200×60:\n\(tmux.capture())")
        // G grants (remapped from g in the config); g no longer does.
        try tmux.keys("g")
        usleep(300_000)
        #expect(!tmux.capture().contains("Grant an entitlement to"), "g still grants:\n\(tmux.capture())")
        try tmux.keys("G")
        #expect(tmux.wait(for: "Grant an entitlement to") != nil, "G does not grant:\n\(tmux.capture())")
        try tmux.keys("Escape")
        #expect(tmux.wait(for: "cancelled, nothing changed") != nil, "\(tmux.capture())")
        // e writes the case file into the configured folder, nothing into the working directory.
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        try tmux.keys("e")
        #expect(tmux.wait(for: "in \(exports)") != nil, "no case file:\n\(tmux.capture())")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: exports)) ?? []
        #expect(written.filter { $0.hasPrefix("case-") }.count == 2, "\(written)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == (before + ["exports"]).sorted().uniqued())
        try tmux.keys("q")
        #expect(tmux.wait(for: "__EXIT=0") != nil, "the console did not exit cleanly:\n\(tmux.capture())")
    }
}

private extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
