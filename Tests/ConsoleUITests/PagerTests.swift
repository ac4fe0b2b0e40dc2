import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// Reading and taking every value (issue 13, item 3): `v` opens the whole value of a row or a
/// line in a pager (scroll, wrap, search), `y` copies it with OSC 52, `s` saves it to a new file;
/// a receipt shows its raw artefact.
@Suite("Reading and taking whole values")
struct PagerTests {
    final class Clipboard: @unchecked Sendable {
        var texts: [String] = []
    }

    @Test func aReceiptsRawArtefactIsReadSearchedCopiedAndSaved() throws {
        let f = try ConsoleFixture()
        let clipboard = Clipboard()
        let (c, screen) = f.console(size: ScreenSize(rows: 40, columns: 120), clipboard: { clipboard.texts.append($0); return true })
        c.press(.character("4"), .enter, on: screen)  // the first receipt, focus on its detail
        let raw = try #require(try f.database.queryFirst("SELECT raw FROM receipts WHERE receipt_id = 1", [])?.blob("raw"))
        let text = String(decoding: raw, as: UTF8.self)
        let lines = DetailLines.build(c.state)
        let rawLine = try #require(lines.firstIndex { $0.spans.text.contains("raw artefact") })
        while c.state.detail.cursor < rawLine { c.press(.down, on: screen) }
        c.press(.character("v"), on: screen)
        guard case .pager(let pager) = c.state.mode else { Issue.record("no pager: \(c.state.mode)"); return }
        #expect(pager.text == text, "the whole artefact, nothing cut")
        #expect(screen.text.contains("receipt #1: raw artefact"))
        #expect(screen.text.contains(String(text.prefix(40))), "\(screen.text)")
        // Search inside it.
        let needle = String(text.dropFirst(300).prefix(12))
        c.press(.character("/"), on: screen)
        c.typeText(needle.lowercased(), on: screen)
        c.press(.enter, on: screen)
        guard case .pager(let searched) = c.state.mode else { Issue.record("the search closed the pager"); return }
        #expect(searched.matchLine == 0 && searched.search == needle.lowercased())
        // Copy, then save (and not over an existing file).
        c.press(.character("y"), on: screen)
        #expect(clipboard.texts == [text])
        #expect(screen.text.contains("copied receipt #1: raw artefact (\(text.utf8.count) bytes)"))
        let path = f.directory.appendingPathComponent("receipt-1.b64").path
        c.press(.character("s"), .control("u"), on: screen)
        c.typeText(path, on: screen)
        c.press(.enter, on: screen)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        c.press(.character("s"), .control("u"), on: screen)
        c.typeText(path, on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("exists already"), "\(screen.text)")
        c.press(.escape, on: screen)
        if case .pager = c.state.mode { Issue.record("Esc kept the pager open") }
    }

    /// Issue 29: `/` starts a new query (it appended to the last one) and a stale "not found" leaves.
    @Test func thePagersSlashStartsANewQueryAndAStaleNotFoundLeaves() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 24, columns: 80))
        c.press(.character("3"), .character("v"), on: screen)
        c.press(.character("/"), on: screen)
        c.typeText("nowhere-at-all", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("✗ not found"), "\(screen.text)")
        c.press(.character("/"), on: screen)
        #expect(!screen.text.contains("not found"), "the old not found stayed: \(screen.text)")
        guard case .pager(let asking) = c.state.mode, case .search(let field)? = asking.prompt else {
            Issue.record("no search prompt: \(c.state.mode)")
            return
        }
        #expect(field.text.isEmpty, "the prompt kept the last query: \(field.text)")
        c.typeText("customer", on: screen)
        c.press(.enter, on: screen)
        guard case .pager(let found) = c.state.mode else { Issue.record("the pager closed"); return }
        #expect(found.search == "customer", "the query appended to the last one: \(found.search)")
        #expect(found.matchLine != nil && !screen.text.contains("not found"), "\(screen.text)")
        // A not found, then any other key: it leaves too.
        c.press(.character("/"), on: screen)
        c.typeText("zzzz", on: screen)
        c.press(.enter, .character("j"), on: screen)
        #expect(!screen.text.contains("not found"), "\(screen.text)")
    }

    @Test func aRowReadsWithEveryFieldUncut() throws {
        let f = try ConsoleFixture()
        let clipboard = Clipboard()
        let (c, screen) = f.console(size: ScreenSize(rows: 24, columns: 80), clipboard: { clipboard.texts.append($0); return true })
        c.press(.character("3"), on: screen)
        c.press(.character("v"), on: screen)
        guard case .pager(let pager) = c.state.mode else { Issue.record("no pager"); return }
        #expect(pager.text.contains("transaction: 1000000359369424"))
        #expect(pager.text.contains("product: com.example.pro.monthly"))
        #expect(pager.text.contains("customer: alice"))
        c.press(.escape, .character("y"), on: screen)
        #expect(clipboard.texts.first == pager.text)
        // Without a terminal there is no clipboard: it says how else to take the value.
        let (plain, plainScreen) = f.console()
        plain.press(.character("y"), on: plainScreen)
        #expect(plainScreen.text.contains("no terminal clipboard here"))
    }
}

/// `e` writes the open customer's case file for a ticket; `customer export` prints the same.
@Suite("Case files")
struct CaseFileTests {
    @Test func eWritesTheCustomersCaseFileAsMarkdownAndJSON() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 160))
        c.press(.character("e"), on: screen)  // alice, the first customer
        #expect(screen.text.contains("case file of alice: case-alice-"), "\(screen.text)")
        let files = try FileManager.default.contentsOfDirectory(atPath: f.directory.path).filter { $0.hasPrefix("case-alice-") }.sorted()
        #expect(files.count == 2 && files[0].hasSuffix(".json") && files[1].hasSuffix(".md"), "\(files)")
        let markdown = try String(contentsOfFile: f.directory.appendingPathComponent(files[1]).path, encoding: .utf8)
        for heading in ["# Customer alice", "## Entitlements", "## Orders", "## Transactions", "## Receipts", "## Grants", "## Audit"] {
            #expect(markdown.contains(heading), "\(heading) missing:\n\(markdown)")
        }
        #expect(markdown.contains("| 1000000359369424 |"))
        #expect(markdown.contains("**pro**: held"))
        let data = try Data(contentsOf: f.directory.appendingPathComponent(files[0]))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["customerId"] as? String == "alice")
        #expect((json["transactions"] as? [Any])?.isEmpty == false)
        #expect((json["audit"] as? [[String: Any]])?.contains { ($0["target"] as? String) == "customer:alice" } == true)
        // A second export in the same minute does not replace the first.
        c.press(.character("e"), on: screen)
        #expect(screen.text.contains("exists already"), "\(screen.text)")
    }
}

/// A console given no folder (the fuzzer, the soak) writes no file, whatever keys it gets.
@Suite("No folder, no files")
struct NoFolderTests {
    @Test func withoutAFolderNeitherExportNorSaveWritesAFile() throws {
        let f = try ConsoleFixture()
        let environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "fuzz", readOnly: false,
                                             databaseLabel: "purchases.sqlite", clock: { ConsoleFixture.now })
        let size = ScreenSize(rows: 24, columns: 80)
        let c = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        let before = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        c.press(.character("e"), on: screen)
        #expect(screen.text.contains("export: this console writes no files"), "\(screen.text)")
        c.press(.character("v"), .character("s"), .enter, on: screen)
        #expect(screen.text.contains("not saved: this console writes no files"), "\(screen.text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath) == before)
    }
}
