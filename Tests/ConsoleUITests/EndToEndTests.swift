import Foundation
import Glibc
import PurchaseStore
import ReceiptCore
import Testing

/// Whether tmux is there to run the end-to-end test in (`make deps` installs it; without it the
/// test fails saying so, it never passes by skipping).
func tmuxIsInstalled() -> Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

/// The real binary in tmux (its own server socket, so no other session is touched): a fresh demo
/// database at 100×30; filter to a customer, open a receipt, re-verify it, grant an entitlement
/// with a reason, quit; then the database and the audit log hold exactly that grant and the
/// terminal is back in its normal mode.
@Suite("End to end in tmux", .serialized)
struct EndToEndTests {
    static var binary: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receiptdesk")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/receiptdesk")
    }

    /// One tmux server of our own.
    final class Tmux {
        let socket = "receiptdesk-e2e-\(getpid())-\(UUID().uuidString.prefix(8))"

        /// Runs a tmux client through the shell and waits for it (`system`, not `Process`: the
        /// client forks the server and a `Process` was seen never to notice the client's exit).
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out")
            defer { try? FileManager.default.removeItem(at: output) }  // best effort
            let quoted = (["/usr/bin/tmux", "-L", socket] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            let status = system(quoted.joined(separator: " ") + " </dev/null >'\(output.path)' 2>/dev/null")
            guard status != -1 else { throw CocoaError(.executableLoad) }
            return (try? String(contentsOf: output, encoding: .utf8)) ?? ""  // no output: empty
        }

        func capture() -> String { (try? run(["capture-pane", "-p", "-t", "e2e"])) ?? "" }  // no pane yet: empty

        func keys(_ keys: String...) throws { try run(["send-keys", "-t", "e2e"] + keys) }

        /// Waits until the pane shows `text`; returns the pane.
        func wait(for text: String, seconds: Double = 60) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            repeat {
                let pane = capture()
                if pane.contains(text) { return pane }
                usleep(100_000)
            } while Date() < deadline
            return nil
        }

        deinit { _ = try? run(["kill-server"]) }  // our own server only; gone already is fine
    }

    /// A fresh demo database (`receiptdesk demo`) in a folder of its own: the folder and the path.
    static func demoDatabase(_ name: String, customers: Int?) throws -> (URL, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let db = folder.appendingPathComponent("purchases.sqlite").path
        let demo = Process()
        demo.executableURL = binary
        demo.arguments = ["demo", "--db", db] + (customers.map { ["--customers", String($0)] } ?? [])
        demo.standardOutput = Pipe()
        demo.standardError = Pipe()
        try demo.run()
        demo.waitUntilExit()
        try #require(demo.terminationStatus == 0, "receiptdesk demo failed")
        return (folder, db)
    }

    @Test func filterOpenReverifyGrantQuit() throws {
        try #require(tmuxIsInstalled(), "tmux is not installed (/usr/bin/tmux): run make deps")
        let (folder, db) = try Self.demoDatabase("console-e2e", customers: nil)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort

        let database = try SQLiteDatabase(path: db, create: false)
        let customer = try #require(try database.queryFirst("""
            SELECT customer_id FROM receipts WHERE customer_id LIKE 'cust-%' AND format = 'unified' AND verdict = 'valid'
            ORDER BY customer_id LIMIT 1
            """, [])?.string("customer_id"))
        let grantsBefore = try database.queryFirst("SELECT count(*) AS n FROM grants", [])?.int("n") ?? -1
        let auditBefore = try database.queryFirst("SELECT max(seq) AS n FROM audit_log", [])?.int("n") ?? 0

        let tmux = Tmux()
        // RECEIPTDESK_CONSOLE_BINARY runs another build of the console (a debugging aid).
        let console = ProcessInfo.processInfo.environment["RECEIPTDESK_CONSOLE_BINARY"] ?? Self.binary.path
        let command = "env RECEIPTDESK_DB='\(db)' RECEIPTDESK_CONFIG='\(folder.appendingPathComponent("config.json").path)' USER=e2e-operator "
            + "'\(console)'; echo __EXIT=$?; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; sleep 60"
        try tmux.run(["new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", command])
        guard tmux.wait(for: "Customers") != nil else {
            Issue.record("the console did not open (receiptdesk with no subcommand on a terminal); the pane shows:\n\(tmux.capture())")
            return
        }
        try tmux.keys("/")
        try tmux.keys("-l", customer)
        try tmux.keys("Enter")
        #expect(tmux.wait(for: "· 1 match") != nil, "the search was not applied:\n\(tmux.capture())")
        try tmux.keys("4")
        #expect(tmux.wait(for: "Receipts · ") != nil && tmux.capture().contains("· unified receipt"),
                "no receipt of \(customer):\n\(tmux.capture())")
        try tmux.keys("Enter")
        #expect(tmux.wait(for: "▾ unified receipt") != nil)
        try tmux.keys("r")
        #expect(tmux.wait(for: "Apple's answer", seconds: 120) != nil, "no answer from the simulator:\n\(tmux.capture())")
        try tmux.keys("g")
        #expect(tmux.wait(for: "Grant an entitlement to \(customer)") != nil)
        try tmux.keys("Tab")
        try tmux.keys("Tab")
        try tmux.keys("-l", "end-to-end goodwill")
        try tmux.keys("Enter")
        #expect(tmux.wait(for: "Grant: confirm") != nil, "no confirmation:\n\(tmux.capture())")
        try tmux.keys("y")
        #expect(tmux.wait(for: "granted") != nil, "the grant was not applied:\n\(tmux.capture())")
        try tmux.keys("q")
        try #require(tmux.wait(for: "__EXIT=0") != nil, "the console did not exit cleanly:\n\(tmux.capture())")
        let after = try #require(tmux.wait(for: "echo", seconds: 30), "no terminal modes after the exit:\n\(tmux.capture())")
        #expect(after.contains("\nicanon") && after.contains("\necho") && !after.contains("-icanon") && !after.contains("-echo"),
                "the terminal was not restored:\n\(after)")
        #expect(!after.contains("Customers"), "the console's screen is still up")

        let grants = try database.query("SELECT * FROM grants", [])
        #expect(Int64(grants.count) == grantsBefore + 1)
        let grant = try #require(grants.last)
        #expect(grant.string("customer_id") == customer && grant.string("reason") == "end-to-end goodwill" && grant.string("granted_by") == "e2e-operator")
        let entries = try database.query("SELECT * FROM audit_log WHERE seq > ? ORDER BY seq", [.integer(auditBefore)])
        let grantEntries = entries.filter { $0.string("action") == "grant" }
        #expect(grantEntries.count == 1)
        #expect(grantEntries.first?.string("target") == "customer:\(customer)")
        #expect(grantEntries.first?.string("details")?.contains("end-to-end goodwill") == true)
        #expect(Set(entries.compactMap { $0.string("action") }).isSubset(of: ["grant", "reverify"]), "only the re-verification and the grant")
        #expect(try AuditLog.verify(database).isIntact)
    }

    /// A JWS wrapped at 40 columns, pasted by the terminal (tmux's bracketed paste): it lands
    /// whole in the import form's artefact field, its line breaks do not act as Enter, and it
    /// imports.
    @Test func aWrappedJWSPastedByTheTerminalImports() throws {
        try #require(tmuxIsInstalled(), "tmux is not installed (/usr/bin/tmux): run make deps")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("console-paste-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort
        let db = folder.appendingPathComponent("purchases.sqlite").path
        let config = folder.appendingPathComponent("config.json").path
        func receiptdesk(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = arguments
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, stdout, stderr)
        }
        try #require(try receiptdesk(["demo", "--db", db, "--customers", "20"]).status == 0, "receiptdesk demo failed")
        let minted = try receiptdesk(["simulator", "mint", "jws", "--config", config, "--product", "com.example.game.coins.1200"])
        try #require(minted.status == 0, "\(minted.stderr)")
        let jws = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let transaction = try #require(minted.stderr.split(separator: " ").first { $0.hasPrefix("20000") }.map(String.init))
        var wrapped = ""
        for (index, character) in jws.enumerated() {
            if index > 0 && index % 40 == 0 { wrapped += "\n" }
            wrapped.append(character)
        }
        let pasteFile = folder.appendingPathComponent("paste.txt")
        try Data(wrapped.utf8).write(to: pasteFile)

        let tmux = Tmux()
        let command = "env RECEIPTDESK_DB='\(db)' RECEIPTDESK_CONFIG='\(config)' USER=e2e-operator '\(Self.binary.path)'; echo __EXIT=$?; sleep 60"
        try tmux.run(["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "30", command])
        guard tmux.wait(for: "Customers") != nil else {
            Issue.record("the console did not open; the pane shows:\n\(tmux.capture())")
            return
        }
        try tmux.keys("i")
        #expect(tmux.wait(for: "Artefact") != nil, "no import form:\n\(tmux.capture())")
        try tmux.keys("C-u")
        try tmux.keys("-l", "paste-customer")
        try tmux.keys("Tab")
        try tmux.run(["load-buffer", "-b", "rd", pasteFile.path])
        try tmux.run(["paste-buffer", "-p", "-b", "rd", "-t", "e2e"])
        // The whole JWS is one field's text: the form is still open on the artefact, nothing spilled.
        #expect(tmux.wait(for: String(jws.suffix(20))) != nil, "the end of the JWS is not in the field:\n\(tmux.capture())")
        #expect(!tmux.capture().contains("Import: confirm"), "a line break of the paste acted as Enter")
        try tmux.keys("Tab")
        try tmux.keys("Tab")
        try tmux.keys("Right")  // New customer: yes, paste-customer is new
        try tmux.keys("Enter")
        #expect(tmux.wait(for: "Import: preview") != nil && tmux.capture().contains("✓ valid"), "no valid preview:\n\(tmux.capture())")
        try tmux.keys("y")
        #expect(tmux.wait(for: "imported") != nil || tmux.wait(for: "recorded") != nil, "not imported:\n\(tmux.capture())")
        try tmux.keys("q")
        try #require(tmux.wait(for: "__EXIT=0") != nil, "the console did not exit cleanly:\n\(tmux.capture())")
        let database = try SQLiteDatabase(path: db, create: false)
        #expect(try database.queryFirst("SELECT customer_id FROM transactions WHERE transaction_id = ?", [.text(transaction)])?
            .string("customer_id") == "paste-customer")
    }

    /// A key sent in the same write as Esc is read after it, not swallowed as part of an
    /// escape sequence; y copies through OSC 52 into tmux's buffer; a terminal that cannot move
    /// the cursor gets a message and exit 64.
    @Test func aKeyRightAfterEscapeAndADumbTerminal() throws {
        try #require(tmuxIsInstalled(), "tmux is not installed (/usr/bin/tmux): run make deps")
        let (folder, db) = try Self.demoDatabase("console-keys", customers: 20)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort
        let tmux = Tmux()
        let console = "env RECEIPTDESK_DB='\(db)' USER=e2e-operator '\(Self.binary.path)'; echo __EXIT=$?; sleep 60"
        try tmux.run(["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "30", console])
        guard tmux.wait(for: "Customers") != nil else {
            Issue.record("the console did not open; the pane shows:\n\(tmux.capture())")
            return
        }
        try tmux.keys("Escape", "2")  // one write: ESC then "2"
        #expect(tmux.wait(for: "┌ Orders") != nil, "the key after Esc was lost:\n\(tmux.capture())")
        try tmux.keys("Escape", "3")
        #expect(tmux.wait(for: "┌ Transactions") != nil, "the key after Esc was lost:\n\(tmux.capture())")
        // y copies the selected row with OSC 52: tmux (set-clipboard on) keeps it as a paste buffer.
        try tmux.run(["set-option", "-g", "set-clipboard", "on"])
        try tmux.keys("y")
        #expect(tmux.wait(for: "to the terminal's clipboard") != nil, "nothing said about the copy:\n\(tmux.capture())")
        var buffer = ""
        let copied = Date().addingTimeInterval(30)
        repeat {
            buffer = (try? tmux.run(["show-buffer"])) ?? ""
            if buffer.contains("transaction: ") { break }
            usleep(100_000)
        } while Date() < copied
        #expect(buffer.contains("transaction: ") && buffer.contains("product: "), "tmux holds no copy: \(buffer)")
        try tmux.keys("q")
        #expect(tmux.wait(for: "__EXIT=0") != nil, "the console did not exit:\n\(tmux.capture())")

        let dumb = "env TERM=dumb RECEIPTDESK_DB='\(db)' USER=e2e-operator '\(Self.binary.path)'; echo __EXIT=$?; sleep 60"
        try tmux.run(["new-window", "-t", "e2e", "-n", "dumb", dumb])
        let deadline = Date().addingTimeInterval(60)
        var pane = ""
        repeat {
            pane = (try? tmux.run(["capture-pane", "-p", "-t", "e2e:dumb"])) ?? ""
            if pane.contains("__EXIT=") { break }
            usleep(100_000)
        } while Date() < deadline
        #expect(pane.contains("TERM=dumb cannot move the cursor"), "\(pane)")
        #expect(pane.contains("receiptdesk search TEXT"), "\(pane)")
        #expect(pane.contains("__EXIT=64"), "\(pane)")
    }
}
