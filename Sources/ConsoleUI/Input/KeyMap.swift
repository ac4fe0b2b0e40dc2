/// Keys remapped in the config, as in k9s's hotkeys and lazygit's keybinding config:
///
///     "console": { "keys": { "grant": "G", "revoke": ["X", "Delete"], "filter": "Ctrl-F" } }
///
/// Each command named (as `:` names it) runs on the keys given instead of its own, wherever it
/// is bound; a key given to a command is taken from any other command it ran in the same place
/// (which keeps its other keys, and `:name` always). The other modes' keys are named `MODE.ACTION`
/// ("pager.wrap": "W", "preview.apply": "a"; `applyModes`). The help and the hints show the keys in force.
enum KeyMap {
    /// The table with `keys` applied; the error says which command or key is wrong and where.
    static func apply(_ keys: [String: [String]], to table: [KeyBinding]) throws -> [KeyBinding] {
        var table = table
        for name in keys.keys.sorted() where !name.contains(".") {  // MODE.ACTION: `applyModes`
            guard let command = Command(rawValue: name) else {
                throw KeyMapError("config console.keys.\(name): no such command; the commands are the names :help lists ("
                                  + Command.allCases.prefix(6).map(\.rawValue).joined(separator: ", ") + ", …)")
            }
            let events = try self.events(keys[name] ?? [], name: name)
            let scopes = Set(table.filter { $0.command == command }.map(\.scope))
            let bound = scopes.isEmpty ? [BindingScope.global] : Array(scopes)
            table = table.map { binding in
                if binding.command == command { return KeyBinding(keys: events, command: command, scope: binding.scope, hint: binding.hint) }
                guard bound.contains(binding.scope) else { return binding }
                return KeyBinding(keys: binding.keys.filter { !events.contains($0) }, command: binding.command, scope: binding.scope, hint: binding.hint)
            }
            if scopes.isEmpty { table.append(KeyBinding(keys: events, command: command, scope: .global, hint: nil)) }
        }
        return table
    }

    /// The other modes' table with the `MODE.ACTION` entries of `keys` applied ("pager.wrap": "W"):
    /// the action runs on the keys given instead of its own, and a key given is taken from any
    /// other action of that mode. The error names the mode, the action or the key that is wrong.
    static func applyModes(_ keys: [String: [String]], to table: [ModeBinding]) throws -> [ModeBinding] {
        var table = table
        for name in keys.keys.sorted() where name.contains(".") {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let mode = InputMode(rawValue: parts[0]) else {
                throw KeyMapError("config console.keys.\(name): no such mode '\(parts.first ?? "")'; the modes are "
                                  + InputMode.allCases.map(\.rawValue).joined(separator: ", ") + " (MODE.ACTION, such as pager.wrap)")
            }
            let actions = table.filter { $0.mode == mode }.map(\.action.rawValue)
            guard let action = ModeAction(rawValue: parts[1]), actions.contains(action.rawValue) else {
                throw KeyMapError("config console.keys.\(name): the \(mode.rawValue) mode has no action '\(parts[1])'; its actions are "
                                  + actions.joined(separator: ", "))
            }
            let events = try self.events(keys[name] ?? [], name: name)
            table = table.map { binding in
                guard binding.mode == mode else { return binding }
                var changed = binding
                changed.keys = binding.action == action ? events : binding.keys.filter { !events.contains($0) }
                return changed
            }
        }
        return table
    }

    /// The keys named for `name`; the error names the one that is no key.
    private static func events(_ texts: [String], name: String) throws -> [KeyEvent] {
        try texts.map { text -> KeyEvent in
            guard let event = key(text) else {
                throw KeyMapError("config console.keys.\(name): '\(text)' is not a key: write one like \"G\", \"Ctrl-G\", \"F2\", \"Space\", \"Enter\", \"Delete\"")
            }
            return event
        }
    }

    /// A key as the help writes it ("G", "Ctrl-G", "F2", "Space", "PgDn", "Shift-Tab", "↑"), or nil.
    static func key(_ text: String) -> KeyEvent? {
        let named: [String: KeyEvent] = ["space": .character(" "), "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape,
                                         "tab": .tab, "shift-tab": .backTab, "backspace": .backspace, "delete": .delete, "del": .delete,
                                         "up": .up, "down": .down, "left": .left, "right": .right, "↑": .up, "↓": .down, "←": .left, "→": .right,
                                         "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end]
        if let event = named[text.lowercased()] { return event }
        if text.count == 1, let character = text.first, !character.isWhitespace, character.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value != 0x7F }) {
            return .character(character)
        }
        let lower = text.lowercased()
        if lower.hasPrefix("ctrl-"), text.count == 6, let letter = lower.last, letter.isASCII, letter.isLetter {
            return .control(letter)
        }
        if lower.hasPrefix("f"), let number = Int(lower.dropFirst()), (1...12).contains(number) { return .function(number) }
        return nil
    }
}

/// A `console.keys` setting that cannot be applied: one line saying which and why.
public struct KeyMapError: Error, CustomStringConvertible, Equatable {
    public let description: String

    init(_ description: String) { self.description = description }
}
