/// The keys of the console's modes other than browsing (the pager, prompts, forms, questions,
/// the refund queue, the help itself), as data: the help screen lists them beside the binding
/// table, and the status bar's hints for each mode come from here, so neither forgets a key.
/// (The browsing keys are `KeyBindings`, which can be remapped; these are fixed.)
enum ModeKeys {
    /// One key of a mode: how it is written, and what it does.
    struct Key: Equatable, Sendable {
        let keys: String
        let summary: String
        /// The status bar's word for it in that mode; nil keeps it to the help screen.
        let hint: String?
        /// The key the status bar names (the first of `keys` unless given).
        let hintKey: String

        init(_ keys: String, _ summary: String, hint: String? = nil, hintKey: String? = nil) {
            self.keys = keys
            self.summary = summary
            self.hint = hint
            self.hintKey = hintKey ?? String(keys.split(separator: " ").first ?? "")
        }
    }

    /// A mode and its keys, as the help screen heads them.
    struct Section: Sendable {
        let title: String
        let keys: [Key]
    }

    static let pager = Section(title: "Pager (v: a whole value)", keys: [
        Key("j k ↓ ↑", "scroll a line", hint: "scroll", hintKey: "j/k"),
        Key("PgDn Space PgUp", "scroll a page"),
        Key("g Home G End", "first / last line"),
        Key("w", "wrap long lines, or cut them with →", hint: "wrap"),
        Key("/", "search: a new query (any case); Enter finds its first match", hint: "search"),
        Key("n", "next match of the search", hint: "next"),
        Key("y", "copy the whole value to the terminal's clipboard (OSC 52)", hint: "copy"),
        Key("s", "save the value to a new file (a bare name goes to the export folder, which the help names)", hint: "save"),
        Key("Esc q", "close", hint: "close"),
    ])

    static let prompts = Section(title: "Prompts (/ search, : command line)", keys: [
        Key("Enter", "search / run"),
        Key("Esc", "cancel"),
        Key("Tab", ": completes a command name, a tab after tab, an id of the rows on screen after a command"),
        Key("← → Home End", "move the cursor (also Ctrl-A, Ctrl-E)"),
        Key("Backspace Delete", "delete before / at the cursor"),
        Key("Ctrl-U", "clear the line"),
    ])

    static let form = Section(title: "Forms (grant, revoke, restore and the others)", keys: [
        Key("Tab ↓", "next field", hint: "next field"),
        Key("Shift-Tab ↑", "previous field"),
        Key("← → h l Space", "choose an option", hint: "choose", hintKey: "←→"),
        Key("Enter", "next field; on the last one, show what will change", hint: "next / preview"),
        Key("Esc", "cancel: nothing changes (asks first after a long paste)", hint: "cancel"),
    ])

    static let confirm = Section(title: "What will change (preview)", keys: [
        Key("y", "apply it (a second y where it asks again)", hint: "apply"),
        Key("n Esc q", "cancel: nothing changes", hint: "cancel: nothing changes"),
    ])

    static let quitConfirm = Section(title: "Quit while an action runs", keys: [
        Key("y", "quit (cancels it)", hint: "quit"),
        Key("n Esc", "stay", hint: "stay"),
    ])

    static let refunds = Section(title: "Refund requests queue ($)", keys: [
        Key("j k ↓ ↑", "move", hint: "move", hintKey: "j/k"),
        Key("Home End G", "first / last request"),
        Key("Enter l →", "review the request and send consumption information", hint: "review & send"),
        Key("a", "answered requests too, or open ones only", hint: "answered too"),
        Key("Ctrl-L F5", "reload"),
        Key("Esc q $", "close", hint: "close"),
    ])

    static let help = Section(title: "This help", keys: [
        Key("j k ↓ ↑ PgDn PgUp", "scroll", hint: "scroll", hintKey: "j/k"),
        Key("Esc", "close", hint: "close"),
        Key("any other key", "close too"),
    ])

    /// Every section, in the order the help lists them.
    static let all: [Section] = [prompts, pager, form, confirm, refunds, quitConfirm, help]

    /// A section's status-bar hints ("key word" pairs; the first key of each).
    static func hints(_ section: Section) -> [(key: String, word: String)] {
        section.keys.compactMap { key in key.hint.map { (key.hintKey, $0) } }
    }
}
