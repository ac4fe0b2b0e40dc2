import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// Issue 29: keys can be remapped in the config (`console.keys`), and the help and hints follow.
@Suite("Key remapping")
struct KeyMapTests {
    @Test func aRemappedKeyRunsItsCommandAndTakesTheKeyFromAnother() throws {
        let table = try KeyMap.apply(["grant": ["G"], "filter": ["Ctrl-F", "F3"]], to: KeyBindings.all)
        #expect(KeyBindings.command(for: .character("G"), scopes: [.list, .global], table: table) == .grant)
        #expect(KeyBindings.command(for: .character("g"), scopes: [.list, .global], table: table) == nil)
        #expect(KeyBindings.command(for: .end, scopes: [.list, .global], table: table) == .bottom, "bottom keeps End")
        #expect(KeyBindings.command(for: .control("f"), scopes: [.list, .global], table: table) == .filter, "Ctrl-F was page-down's")
        #expect(KeyBindings.command(for: .function(3), scopes: [.global], table: table) == .filter)
        #expect(KeyBindings.helpRows(readOnly: false, table: table).contains { $0.name == "grant" && $0.keys == "G" })
        #expect(KeyBindings.hints(scopes: [.list, .global], readOnly: false, table: table).contains { $0.key == "G" && $0.word == "grant" })
    }

    @Test func aWrongCommandOrKeyIsNamed() {
        #expect(throws: KeyMapError.self) { try KeyMap.apply(["grnt": ["G"]], to: KeyBindings.all) }
        do {
            _ = try KeyMap.apply(["grant": ["Hyper-G"]], to: KeyBindings.all)
            Issue.record("an unknown key was accepted")
        } catch {
            #expect("\(error)".contains("console.keys.grant: 'Hyper-G' is not a key"), "\(error)")
        }
        #expect(KeyMap.key("Space") == .character(" ") && KeyMap.key("ctrl-g") == .control("g") && KeyMap.key("F12") == .function(12))
        #expect(KeyMap.key("F13") == nil && KeyMap.key("") == nil && KeyMap.key("ab") == nil)
    }

    @Test func theConfigReadsKeysAndTheConsoleUsesThem() throws {
        let text = #"{"console": {"keys": {"grant": "G", "revoke": ["X", "Delete"]}}}"#
        let configuration = try StoreConfiguration(json: Array(text.utf8), source: "c.json")
        #expect(configuration.console.keys == ["grant": ["G"], "revoke": ["X", "Delete"]])
        #expect(throws: ReceiptError.self) { try StoreConfiguration(json: Array(#"{"console": {"keys": {"grant": 7}}}"#.utf8), source: "c.json") }
        let f = try ConsoleFixture()
        var environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "mei", readOnly: false,
                                             databaseLabel: "purchases.sqlite", clock: { ConsoleFixture.now })
        try environment.remapKeys(configuration.console.keys)
        let size = ScreenSize(rows: 24, columns: 80)
        let c = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        c.press(.character("G"), on: screen)
        #expect(screen.text.contains("Grant an entitlement to alice"), "\(screen.text)")
        c.press(.escape, .character("?"), on: screen)
        #expect(screen.text.contains("G                 grant"), "\(screen.text)")
    }

    /// `console --search TEXT` opens at the search.
    @Test func theConsoleOpensAtASearch() throws {
        let f = try ConsoleFixture()
        var environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "mei", readOnly: false,
                                             databaseLabel: "purchases.sqlite", clock: { ConsoleFixture.now })
        environment.initialFilter = try BrowseFilter(parsing: "liddell")
        let size = ScreenSize(rows: 24, columns: 80)
        let c = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        c.render(on: screen)
        #expect(c.state.filter.terms == ["liddell"] && c.state.list.rows.count == 1, "\(screen.text)")
        #expect(screen.text.contains("Alice Liddell") && screen.text.contains("/ liddell"), "\(screen.text)")
    }
}

