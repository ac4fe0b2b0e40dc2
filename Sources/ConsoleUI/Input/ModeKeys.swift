/// A mode of the console other than browsing whose keys are data: the config remaps them as
/// `console.keys` entries named `MODE.ACTION` ("pager.wrap": "W", "preview.apply": "a").
enum InputMode: String, CaseIterable, Sendable {
    case pager, form, preview, refunds, quit, help

    /// The help screen's heading for it.
    var title: String {
        switch self {
        case .pager: return "Pager (v: a whole value)"
        case .form: return "Forms (grant, revoke, restore and the others)"
        case .preview: return "What will change (preview)"
        case .refunds: return "Refund requests queue ($)"
        case .quit: return "Quit while an action runs"
        case .help: return "This help"
        }
    }
}

/// What a key does in a mode (its name after the mode's in `console.keys`).
enum ModeAction: String, Sendable {
    case down, up, pageDown = "page-down", pageUp = "page-up", top, bottom
    case wrap, search, next, copy, save, close
    case nextField = "next-field", previousField = "previous-field", choosePrevious = "choose-previous", chooseNext = "choose-next", submit, cancel
    case apply, quit, stay
    case review, answered, reload
}

/// One key binding of a mode: the keys, what they do, and the status bar's word for it.
struct ModeBinding: Sendable {
    let mode: InputMode
    let action: ModeAction
    var keys: [KeyEvent]
    let summary: String
    /// The status bar's word for it in that mode; nil keeps it to the help screen.
    let hint: String?
    /// The status bar names this key and the pair's together ("j/k scroll").
    var pair: ModeAction? = nil

    /// "pager.wrap", as `console.keys` names it.
    var name: String { "\(mode.rawValue).\(action.rawValue)" }
}

/// The keys of the console's modes other than browsing, as data: the handlers look keys up here,
/// the help screen lists them beside the binding table, and the status bar's hints come from
/// here, so none of them forgets a key, and a remapped key (`KeyMap`) is followed by all three.
/// The one-line prompts' editing keys are text editing and stay fixed (`prompts`).
enum ModeKeys {
    static let all: [ModeBinding] = [
        ModeBinding(mode: .pager, action: .down, keys: [.character("j"), .down], summary: "scroll down a line", hint: "scroll", pair: .up),
        ModeBinding(mode: .pager, action: .up, keys: [.character("k"), .up], summary: "scroll up a line", hint: nil),
        ModeBinding(mode: .pager, action: .pageDown, keys: [.pageDown, .character(" ")], summary: "scroll down a page", hint: nil),
        ModeBinding(mode: .pager, action: .pageUp, keys: [.pageUp], summary: "scroll up a page", hint: nil),
        ModeBinding(mode: .pager, action: .top, keys: [.character("g"), .home], summary: "first line", hint: nil),
        ModeBinding(mode: .pager, action: .bottom, keys: [.character("G"), .end], summary: "last line", hint: nil),
        ModeBinding(mode: .pager, action: .wrap, keys: [.character("w")], summary: "wrap long lines, or cut them with →", hint: "wrap"),
        ModeBinding(mode: .pager, action: .search, keys: [.character("/")], summary: "search: a new query (any case); Enter finds its first match", hint: "search"),
        ModeBinding(mode: .pager, action: .next, keys: [.character("n")], summary: "next match of the search", hint: "next"),
        ModeBinding(mode: .pager, action: .copy, keys: [.character("y")], summary: "copy the whole value to the terminal's clipboard (OSC 52)", hint: "copy"),
        ModeBinding(mode: .pager, action: .save, keys: [.character("s")],
                    summary: "save the value to a new file (a bare name goes to the export folder, which the help names)", hint: "save"),
        ModeBinding(mode: .pager, action: .close, keys: [.escape, .character("q")], summary: "close", hint: "close"),
        ModeBinding(mode: .form, action: .nextField, keys: [.tab, .down], summary: "next field", hint: "next field"),
        ModeBinding(mode: .form, action: .previousField, keys: [.backTab, .up], summary: "previous field", hint: nil),
        ModeBinding(mode: .form, action: .choosePrevious, keys: [.left, .character("h")], summary: "choose the previous option (a choice field)", hint: "choose",
                    pair: .chooseNext),
        ModeBinding(mode: .form, action: .chooseNext, keys: [.right, .character("l"), .character(" ")], summary: "choose the next option (a choice field; goodwill B: grant here or extend at Apple)", hint: nil),
        ModeBinding(mode: .form, action: .submit, keys: [.enter], summary: "next field; on the last one, show what will change", hint: "next / preview"),
        ModeBinding(mode: .form, action: .cancel, keys: [.escape], summary: "cancel: nothing changes (asks first after a long paste)", hint: "cancel"),
        ModeBinding(mode: .preview, action: .apply, keys: [.character("y"), .character("Y")], summary: "apply it (a second time where it asks again)", hint: "apply"),
        ModeBinding(mode: .preview, action: .cancel, keys: [.character("n"), .character("N"), .escape, .character("q")], summary: "cancel: nothing changes",
                    hint: "cancel: nothing changes"),
        ModeBinding(mode: .refunds, action: .down, keys: [.character("j"), .down], summary: "next request", hint: "move", pair: .up),
        ModeBinding(mode: .refunds, action: .up, keys: [.character("k"), .up], summary: "previous request", hint: nil),
        ModeBinding(mode: .refunds, action: .top, keys: [.home], summary: "first request", hint: nil),
        ModeBinding(mode: .refunds, action: .bottom, keys: [.end, .character("G")], summary: "last request", hint: nil),
        ModeBinding(mode: .refunds, action: .review, keys: [.enter, .character("l"), .right], summary: "review the request and send consumption information",
                    hint: "review & send"),
        ModeBinding(mode: .refunds, action: .answered, keys: [.character("a")], summary: "answered requests too, or open ones only", hint: "answered too"),
        ModeBinding(mode: .refunds, action: .reload, keys: [.control("l"), .function(5)], summary: "reload", hint: nil),
        ModeBinding(mode: .refunds, action: .close, keys: [.escape, .character("q"), .character("$")], summary: "close", hint: "close"),
        ModeBinding(mode: .quit, action: .quit, keys: [.character("y"), .character("Y")], summary: "quit (cancels it)", hint: "quit"),
        ModeBinding(mode: .quit, action: .stay, keys: [.character("n"), .character("N"), .escape], summary: "stay", hint: "stay"),
        ModeBinding(mode: .help, action: .down, keys: [.character("j"), .down], summary: "scroll down", hint: "scroll", pair: .up),
        ModeBinding(mode: .help, action: .up, keys: [.character("k"), .up], summary: "scroll up", hint: nil),
        ModeBinding(mode: .help, action: .pageDown, keys: [.pageDown], summary: "scroll down a page", hint: nil),
        ModeBinding(mode: .help, action: .pageUp, keys: [.pageUp], summary: "scroll up a page", hint: nil),
        ModeBinding(mode: .help, action: .close, keys: [.escape], summary: "close (any other key closes too)", hint: "close"),
    ]

    /// The one-line prompts' keys (text editing; not remapped): how they are written, and what they do.
    static let prompts: (title: String, keys: [(keys: String, summary: String)]) = ("Prompts (/ search, : command line)", [
        ("Enter", "search / run"),
        ("Esc", "cancel"),
        ("Tab", ": completes a command name, a tab after tab, a column and asc/desc after sort, an id of the rows on screen after a command"),
        ("← → Home End", "move the cursor (also Ctrl-A, Ctrl-E)"),
        ("Backspace Delete", "delete before / at the cursor"),
        ("Ctrl-U", "clear the line"),
    ])

    /// What `key` does in `mode` under `table`, or nil.
    static func action(for key: KeyEvent, in mode: InputMode, table: [ModeBinding]) -> ModeAction? {
        table.first { $0.mode == mode && $0.keys.contains(key) }?.action
    }

    /// The first key of `action` in `mode` as the help writes it ("y"), or "–" when none is bound.
    static func key(_ action: ModeAction, in mode: InputMode, table: [ModeBinding]) -> String {
        table.first { $0.mode == mode && $0.action == action }?.keys.first?.description ?? "–"
    }

    /// A mode's status-bar hints ("key word" pairs, in table order).
    static func hints(_ mode: InputMode, table: [ModeBinding]) -> [(key: String, word: String)] {
        table.filter { $0.mode == mode && !$0.keys.isEmpty }.compactMap { binding -> (key: String, word: String)? in
            guard let word = binding.hint, let first = binding.keys.first else { return nil }
            // "j/k" for two letters, "←→" for two arrows.
            let label = binding.pair.map { pair -> String in
                let other = Self.key(pair, in: mode, table: table)
                guard case .character = first, other.count == 1 else { return first.description + other }
                return first.description + "/" + other
            } ?? first.description
            return (label, word)
        }
    }

    /// The help screen's rows of every mode: a heading, then "keys  name  what it does".
    static func helpRows(table: [ModeBinding]) -> [(keys: String, name: String, summary: String, heading: Bool)] {
        var rows: [(String, String, String, Bool)] = [("", prompts.title, "", true)]
        rows += prompts.keys.map { ($0.keys, "", $0.summary, false) }
        for mode in InputMode.allCases {
            rows.append(("", mode.title, "", true))
            rows += table.filter { $0.mode == mode && !$0.keys.isEmpty }.map { ($0.keys.map(\.description).joined(separator: " "), $0.name, $0.summary, false) }
        }
        return rows
    }
}
