import Foundation
import ReceiptCore
import Testing
@testable import ConsoleUI

/// Issue 29: the README's `console.keys` are real. The console section's example block is read
/// by the config parser and applied; each key it gives runs what it is given to, and the keys
/// the prose says it takes away are gone; its list of modes and actions is the table's; the
/// error it quotes is the one thrown; every config block of the README that remaps keys applies.
@Suite("README console keys")
struct ReadmeKeysTests {
    static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The lines of the README's section `title` (up to the next `## ` heading).
    static func section(_ title: String, of text: String) throws -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: title), "README.md has no section \(title)")
        let rest = lines[(start + 1)...]
        return Array(rest.prefix { !$0.hasPrefix("## ") })
    }

    /// The text of each ```json block among `lines`.
    static func jsonBlocks(_ lines: [String]) -> [String] {
        var blocks: [String] = []
        var open: [String]?
        for line in lines {
            if line.hasPrefix("```") {
                if let body = open { blocks.append(body.joined(separator: "\n")); open = nil } else if line == "```json" { open = [] }
                continue
            }
            open?.append(line)
        }
        return blocks
    }

    /// The keys of a config block, checked as the console checks them when it opens.
    static func applied(_ block: String) throws -> (keys: [String: [String]], list: [KeyBinding], modes: [ModeBinding]) {
        let keys = try StoreConfiguration(json: Array(block.utf8), source: "README.md").console.keys
        return (keys, try KeyMap.apply(keys, to: KeyBindings.all), try KeyMap.applyModes(keys, to: ModeKeys.all))
    }

    @Test func theConsoleSectionsExampleDoesWhatItSays() throws {
        let blocks = Self.jsonBlocks(try Self.section("## The console", of: try Self.readme()))
        try #require(blocks.count == 1, "the console section holds \(blocks.count) json blocks, one wanted: \(blocks)")
        let (keys, list, modes) = try Self.applied(blocks[0])
        // The prose below the block describes these entries: change both together.
        #expect(keys == ["grant": ["G"], "revoke": ["X", "Delete"], "pager.wrap": ["W"], "preview.apply": ["a"], "form.next-field": ["F2"]],
                "the README's example changed: check what its prose says it does, then this test")
        for (name, texts) in keys {
            for text in texts {
                let key = try #require(KeyMap.key(text), "\(name): '\(text)'")
                let parts = name.split(separator: ".").map(String.init)
                if parts.count == 2 {
                    let mode = try #require(InputMode(rawValue: parts[0]))
                    #expect(ModeKeys.action(for: key, in: mode, table: modes)?.rawValue == parts[1], "\(name): \(text)")
                } else {
                    let command = try #require(Command(rawValue: name))
                    let scopes = list.filter { $0.command == command }.map(\.scope)
                    #expect(!scopes.isEmpty && scopes.allSatisfy { KeyBindings.command(for: key, scopes: [$0], table: list) == command }, "\(name): \(text)")
                }
            }
        }
        // "it was the last row's key, which keeps End", "x no longer does".
        #expect(KeyBindings.command(for: .character("G"), scopes: [.global], table: KeyBindings.all) == .bottom)
        #expect(KeyBindings.command(for: .end, scopes: [.global], table: list) == .bottom)
        #expect(BindingScope.allCases.allSatisfy { KeyBindings.command(for: .character("x"), scopes: [$0], table: list) != .revoke })
        // "w no longer does", "y no longer does; n, Esc and q still cancel", "Tab and ↓ no longer do".
        #expect(ModeKeys.action(for: .character("w"), in: .pager, table: modes) == nil)
        #expect(ModeKeys.action(for: .character("y"), in: .preview, table: modes) == nil)
        #expect([KeyEvent.character("n"), .escape, .character("q")].allSatisfy { ModeKeys.action(for: $0, in: .preview, table: modes) == .cancel })
        #expect(ModeKeys.action(for: .tab, in: .form, table: modes) == nil && ModeKeys.action(for: .down, in: .form, table: modes) == nil)
    }

    @Test func theListOfModesAndActionsIsTheTable() throws {
        let lines = try Self.section("## The console", of: try Self.readme()).filter { $0.hasPrefix("- `") }
        #expect(lines.count == InputMode.allCases.count, "\(lines)")
        for mode in InputMode.allCases {
            guard let line = lines.first(where: { $0.hasPrefix("- `\(mode.rawValue)` ") }), let colon = line.range(of: "): ") else {
                Issue.record("the README lists no mode \(mode.rawValue) as \"- `\(mode.rawValue)` (…): actions\"")
                continue
            }
            var actions: [String] = []
            for binding in ModeKeys.all where binding.mode == mode && !actions.contains(binding.action.rawValue) { actions.append(binding.action.rawValue) }
            #expect(String(line[colon.upperBound...]) == actions.joined(separator: ", "), "\(mode.rawValue)")
        }
    }

    @Test func theErrorItQuotesIsTheOneThrown() throws {
        let section = try Self.section("## The console", of: try Self.readme()).joined(separator: " ")
        let start = try #require(section.range(of: "(`config console.keys."), "the README quotes no console.keys error")
        let quoted = String(section[start.upperBound...].prefix { $0 != "`" })
        let name = String(quoted.prefix { $0 != ":" })
        #expect(throws: KeyMapError("config console.keys." + quoted)) { try KeyMap.applyModes([name: ["W"]], to: ModeKeys.all) }
    }

    @Test func everyConfigBlockThatRemapsKeysApplies() throws {
        let blocks = Self.jsonBlocks(try Self.readme().split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            .filter { $0.contains("\"keys\"") }
        #expect(blocks.count >= 2, "\(blocks.count) config blocks remap keys")
        for block in blocks {
            let (keys, _, _) = try Self.applied(block)
            #expect(!keys.isEmpty, "\(block)")
        }
    }
}
