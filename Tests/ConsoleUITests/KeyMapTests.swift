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
        #expect(screen.text.range(of: "G +grant ", options: .regularExpression) != nil, "\(screen.text)")
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


/// Issue 29 §3c: every mode's keys can be remapped (`MODE.ACTION`), not only browsing's.
@Suite("Key remapping in every mode")
struct ModeKeyMapTests {
    static func console(_ keys: [String: [String]]) throws -> (ConsoleFixture, ConsoleController, VirtualScreen) {
        let f = try ConsoleFixture()
        var environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "mei", readOnly: false,
                                             databaseLabel: "purchases.sqlite", clock: { ConsoleFixture.now })
        try environment.remapKeys(keys)
        let size = ScreenSize(rows: 60, columns: 200)
        let c = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        c.render(on: screen)
        return (f, c, screen)
    }

    @Test func aRemappedPagerKeyWorksAndTheOldOneNoLonger() throws {
        let (_, c, screen) = try Self.console(["pager.wrap": ["W"]])
        c.press(.character("v"), on: screen)
        guard case .pager(let opened) = c.state.mode else { Issue.record("no pager: \(screen.text)"); return }
        c.press(.character("w"), on: screen)
        guard case .pager(let afterOld) = c.state.mode else { Issue.record("w left the pager"); return }
        #expect(afterOld.wrap == opened.wrap, "w still wraps")
        c.press(.character("W"), on: screen)
        guard case .pager(let afterNew) = c.state.mode else { Issue.record("W left the pager"); return }
        #expect(afterNew.wrap != opened.wrap, "W does not wrap")
        #expect(screen.text.contains("W wrap"), "the pager's footer names W: \(screen.text)")
    }

    @Test func remappedFormAndPreviewKeysWorkAndTheOldOnesNoLonger() async throws {
        let (f, c, screen) = try Self.console(["form.next-field": ["F2"], "preview.apply": ["a"]])
        c.press(.character("g"), .tab, on: screen)
        guard case .form(let form) = c.state.mode else { Issue.record("no form: \(screen.text)"); return }
        #expect(form.focus == 0, "Tab still moves to the next field")
        c.press(.function(2), .function(2), on: screen)
        guard case .form(let moved) = c.state.mode else { Issue.record("F2 left the form"); return }
        #expect(moved.focus == 2, "F2 does not move to the next field")
        c.typeText("goodwill", on: screen)
        c.press(.enter, on: screen)
        guard case .confirm = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }
        #expect(screen.text.contains("a apply") && screen.text.contains("nothing changes until a"), "\(screen.text)")
        let before = try f.database.query("SELECT grant_id FROM grants", []).count
        c.press(.character("y"), on: screen)
        guard case .confirm = c.state.mode else { Issue.record("y still applies: \(screen.text)"); return }
        c.press(.character("a"), on: screen)
        #expect(await c.settle())
        #expect(try f.database.query("SELECT grant_id FROM grants", []).count == before + 1, "a did not apply")
    }

    @Test func theHelpShowsTheKeysInForceForEachMode() throws {
        let (_, c, screen) = try Self.console(["pager.wrap": ["W"], "preview.apply": ["a"], "refunds.answered": ["A"]])
        c.press(.character("?"), on: screen)
        let lines = screen.text.split(separator: "\n").map(String.init)
        for (name, key) in [("pager.wrap", "W"), ("preview.apply", "a"), ("preview.cancel", "n N Esc q")] {
            guard let line = lines.first(where: { $0.contains(name + " ") }) else {
                Issue.record("\(name) is not in the help: \(screen.text)")
                continue
            }
            #expect(line.contains(" " + key + String(repeating: " ", count: 2)) && line.range(of: NSRegularExpression.escapedPattern(for: key) + " +" + name,
                                                                                            options: .regularExpression) != nil, "\(name): '\(line)'")
        }
    }

    @Test func aWrongModeActionOrKeyIsNamedWithItsMode() {
        func message(_ keys: [String: [String]]) -> String {
            do {
                _ = try KeyMap.applyModes(keys, to: ModeKeys.all)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["pagr.wrap": ["W"]]).contains("console.keys.pagr.wrap: no such mode 'pagr'; the modes are pager, form, preview"))
        #expect(message(["pager.wrp": ["W"]]).contains("console.keys.pager.wrp: the pager mode has no action 'wrp'; its actions are down, up"))
        #expect(message(["preview.wrap": ["W"]]).contains("the preview mode has no action 'wrap'; its actions are apply, cancel"))
        #expect(message(["pager.wrap": ["Hyper-W"]]).contains("console.keys.pager.wrap: 'Hyper-W' is not a key"))
        // The browsing table ignores MODE.ACTION names, and a key given is taken from the mode's other action.
        #expect(throws: Never.self) { try KeyMap.apply(["pager.wrap": ["W"]], to: KeyBindings.all) }
        let table = (try? KeyMap.applyModes(["preview.apply": ["n"]], to: ModeKeys.all)) ?? []
        #expect(ModeKeys.action(for: .character("n"), in: .preview, table: table) == .apply)
        #expect(ModeKeys.action(for: .escape, in: .preview, table: table) == .cancel, "cancel keeps its other keys")
    }
}
