/// Everything the console can do, by the name the `:` command line accepts.
enum Command: String, CaseIterable, Sendable {
    case down, up
    case pageDown = "page-down", pageUp = "page-up", top, bottom
    case nextTab = "next-tab", previousTab = "previous-tab"
    case customers, orders, transactions, receipts, conflicts, audit
    case open, back
    case toggle, expand, collapse
    case expandAll = "expand-all"
    case filter
    case clearFilter = "clear-filter"
    case command, help, refresh, cancel, quit
    case view, copy, utc
    case export
    case reverify, grant, revoke, restore, resolve
    case importArtefact = "import"
    case appleStatus = "apple-status", extend, setToken = "set-token", history, lookupOrder = "lookup-order"
    case refunds, massExtend = "mass-extend", notifications, offer
    case note, report
    case erase
    case grantBatch = "grant-batch"
    case tag, untag, sort, flip

    /// Whether it changes the database (absent and refused in read-only mode). Re-verifying
    /// records Apple's answer and applies what Apple knows, so it counts.
    var changesData: Bool {
        switch self {
        case .reverify, .grant, .revoke, .restore, .resolve, .importArtefact, .note, .erase, .grantBatch: return true
        case .appleStatus, .extend, .setToken, .lookupOrder, .massExtend, .notifications, .offer: return true
        default: return false
        }
    }

    /// One line for the help screen.
    var summary: String {
        switch self {
        case .down: return "next row / line"
        case .up: return "previous row / line"
        case .pageDown: return "next page"
        case .pageUp: return "previous page"
        case .top: return "first row"
        case .bottom: return "last row"
        case .nextTab: return "next tab"
        case .previousTab: return "previous tab"
        case .customers, .orders, .transactions, .receipts, .conflicts, .audit: return "show the \(rawValue) tab"
        case .open: return "open the selection in the detail pane (or what the line names)"
        case .back: return "back: close the detail, go up the tree, leave a prompt"
        case .toggle: return "fold or unfold the tree node"
        case .expand: return "unfold the tree node"
        case .collapse: return "fold the tree node (or go to its parent)"
        case .expandAll: return "unfold the whole tree"
        case .filter: return "filter: ids, product, env:sandbox status:conflict verdict:invalid"
        case .clearFilter: return "remove the filter"
        case .command: return "command line: any action by name"
        case .help: return "this help"
        case .refresh: return "reload lists and counts"
        case .cancel: return "cancel the running re-verification"
        case .quit: return "quit (asks when an action is running)"
        case .reverify: return "re-verify the receipt or customer with Apple"
        case .grant: return "grant an entitlement (form, then confirmation)"
        case .revoke: return "revoke an entitlement or a grant"
        case .restore: return "restore purchases from another customer or a receipt (preview first)"
        case .resolve: return "resolve the conflict by choosing the owner"
        case .importArtefact: return "import a pasted receipt / JWS / notification, or a file"
        case .view: return "read the whole value of the row or line (pager: scroll, wrap, /, save)"
        case .copy: return "copy the whole value of the row or line to the terminal's clipboard (OSC 52)"
        case .utc: return "show times in UTC, or back in your own zone"
        case .export: return "export the customer as a case file for a ticket (Markdown and JSON files in the export folder)"
        case .appleStatus: return "ask Apple for the customer's subscription status (recorded)"
        case .extend: return "extend one of the customer's subscriptions at Apple (days, reason code, reason; preview)"
        case .setToken: return "set the app account token of the transaction's purchase at Apple (preview)"
        case .history: return "Apple's transaction history around the transaction, verified, with owners (pager)"
        case .lookupOrder: return "look up an Apple order id from the invoice email: import its transactions for the customer"
        case .refunds: return "the refund requests queue (most urgent first): review and send consumption information"
        case .massExtend: return "extend every subscriber of a product at Apple (preview, then progress)"
        case .notifications: return "fetch Apple's notification history for a period, or request a test notification"
        case .erase: return "erase the customer's personal data on request (preview: what goes, what stays; reason)"
        case .grantBatch: return "goodwill for many (the tagged rows, else every customer the filter finds): grant here, or extend at Apple; one preview"
        case .report: return "the team report: this week and this month, sparklines per day (pager)"
        case .note: return "add a note on the customer (shown to the whole team, in the case file; audited)"
        case .offer: return "sign a promotional or win-back offer for one of the customer's subscriptions (preview; shown once, not kept)"
        case .tag: return "tag the row (or untag it) and go to the next: grant, revoke and re-verify then act on every tagged row, with one preview"
        case .untag: return "untag every row of the tab"
        case .sort: return "sort by the list's next column (the heading marks it ▲ or ▼); :sort COLUMN [asc|desc] picks one"
        case .flip: return "turn the list's sort round (▲ A to Z or oldest first, ▼ the other way), paging as fast either way"
        }
    }
}

/// Where a binding applies.
enum BindingScope: String, Sendable, CaseIterable {
    /// Everywhere while browsing.
    case global
    /// The list pane has the focus.
    case list
    /// The detail pane has the focus.
    case detail
    /// The Conflicts tab.
    case conflicts
}

/// A key binding: the keys, what they do, where, and the short hint shown in the status bar.
struct KeyBinding: Sendable {
    let keys: [KeyEvent]
    let command: Command
    let scope: BindingScope
    /// The status bar's word for it ("re-verify"); nil keeps it out of the status bar.
    let hint: String?

    /// The keys as the help screen writes them.
    var keyLabel: String { keys.map(\.description).joined(separator: " ") }
}

/// The binding table: it decides what keys do, and it writes the help screen and the status-bar
/// hints, so the three never disagree. Changing actions disappear from all of them in read-only mode.
enum KeyBindings {
    static let all: [KeyBinding] = [
        KeyBinding(keys: [.character("j"), .down], command: .down, scope: .global, hint: nil),
        KeyBinding(keys: [.character("k"), .up], command: .up, scope: .global, hint: nil),
        KeyBinding(keys: [.pageDown, .control("f")], command: .pageDown, scope: .global, hint: nil),
        KeyBinding(keys: [.pageUp, .control("b")], command: .pageUp, scope: .global, hint: nil),
        KeyBinding(keys: [.home], command: .top, scope: .global, hint: nil),
        KeyBinding(keys: [.end, .character("G")], command: .bottom, scope: .global, hint: nil),
        KeyBinding(keys: [.tab, .character("]")], command: .nextTab, scope: .global, hint: "tab"),
        KeyBinding(keys: [.backTab, .character("[")], command: .previousTab, scope: .global, hint: nil),
        KeyBinding(keys: [.character("1")], command: .customers, scope: .global, hint: nil),
        KeyBinding(keys: [.character("2")], command: .orders, scope: .global, hint: nil),
        KeyBinding(keys: [.character("3")], command: .transactions, scope: .global, hint: nil),
        KeyBinding(keys: [.character("4")], command: .receipts, scope: .global, hint: nil),
        KeyBinding(keys: [.character("5")], command: .conflicts, scope: .global, hint: nil),
        KeyBinding(keys: [.character("6")], command: .audit, scope: .global, hint: nil),
        KeyBinding(keys: [.enter, .character("l"), .right], command: .open, scope: .list, hint: "open"),
        KeyBinding(keys: [.character(" ")], command: .tag, scope: .list, hint: nil),
        KeyBinding(keys: [.character("U")], command: .untag, scope: .list, hint: nil),
        KeyBinding(keys: [.character("S")], command: .sort, scope: .list, hint: nil),
        KeyBinding(keys: [.character("s")], command: .flip, scope: .list, hint: nil),
        KeyBinding(keys: [.enter, .character(" ")], command: .toggle, scope: .detail, hint: "fold"),
        KeyBinding(keys: [.character("l"), .right], command: .expand, scope: .detail, hint: nil),
        KeyBinding(keys: [.character("h"), .left], command: .collapse, scope: .detail, hint: nil),
        KeyBinding(keys: [.character("*")], command: .expandAll, scope: .detail, hint: "all"),
        KeyBinding(keys: [.escape], command: .back, scope: .detail, hint: "back"),
        KeyBinding(keys: [.character("r")], command: .reverify, scope: .global, hint: "re-verify"),
        KeyBinding(keys: [.character("g")], command: .grant, scope: .global, hint: "grant"),
        KeyBinding(keys: [.character("x")], command: .revoke, scope: .global, hint: "revoke"),
        KeyBinding(keys: [.character("R")], command: .restore, scope: .global, hint: "restore"),
        KeyBinding(keys: [.character("o")], command: .resolve, scope: .conflicts, hint: "owner"),
        KeyBinding(keys: [.character("i")], command: .importArtefact, scope: .global, hint: "import"),
        KeyBinding(keys: [.character("/")], command: .filter, scope: .global, hint: "filter"),
        KeyBinding(keys: [.character("\\")], command: .clearFilter, scope: .global, hint: nil),
        KeyBinding(keys: [.character(":")], command: .command, scope: .global, hint: "cmd"),
        KeyBinding(keys: [.control("l"), .function(5)], command: .refresh, scope: .global, hint: nil),
        KeyBinding(keys: [.escape], command: .cancel, scope: .global, hint: nil),
        KeyBinding(keys: [.character("v")], command: .view, scope: .global, hint: "view"),
        KeyBinding(keys: [.character("y")], command: .copy, scope: .global, hint: nil),
        KeyBinding(keys: [.character("e")], command: .export, scope: .global, hint: nil),
        KeyBinding(keys: [.character("u")], command: .utc, scope: .global, hint: nil),
        KeyBinding(keys: [.character("a")], command: .appleStatus, scope: .global, hint: "apple"),
        KeyBinding(keys: [.character("E")], command: .extend, scope: .global, hint: "extend"),
        KeyBinding(keys: [.character("$")], command: .refunds, scope: .global, hint: "refunds"),
        KeyBinding(keys: [.character("T")], command: .setToken, scope: .global, hint: nil),
        KeyBinding(keys: [.character("H")], command: .history, scope: .global, hint: nil),
        KeyBinding(keys: [.character("O")], command: .lookupOrder, scope: .global, hint: nil),
        KeyBinding(keys: [.character("M")], command: .massExtend, scope: .global, hint: nil),
        KeyBinding(keys: [.character("N")], command: .notifications, scope: .global, hint: nil),
        KeyBinding(keys: [.character("P")], command: .offer, scope: .global, hint: nil),
        KeyBinding(keys: [.character("n")], command: .note, scope: .global, hint: nil),
        KeyBinding(keys: [.character("W")], command: .report, scope: .global, hint: nil),
        KeyBinding(keys: [.character("B")], command: .grantBatch, scope: .global, hint: nil),
        KeyBinding(keys: [.character("X")], command: .erase, scope: .global, hint: nil),
        KeyBinding(keys: [.character("?")], command: .help, scope: .global, hint: "help"),
        KeyBinding(keys: [.character("q")], command: .quit, scope: .global, hint: "quit"),
    ]

    /// The bindings in force: `scopes` in order of precedence, changing ones left out when read-only.
    static func active(scopes: [BindingScope], readOnly: Bool, table: [KeyBinding] = all) -> [KeyBinding] {
        scopes.flatMap { scope in table.filter { $0.scope == scope && !$0.keys.isEmpty } }.filter { !(readOnly && $0.command.changesData) }
    }

    /// What `key` does under `scopes` (the first scope that binds it wins).
    static func command(for key: KeyEvent, scopes: [BindingScope], table: [KeyBinding] = all) -> Command? {
        // Changing actions are looked up even when read-only, so they can be refused out loud.
        for scope in scopes {
            if let binding = table.first(where: { $0.scope == scope && $0.keys.contains(key) }) { return binding.command }
        }
        return nil
    }

    /// The status bar's hints for `scopes`: "key word" pairs, in table order, each command once.
    static func hints(scopes: [BindingScope], readOnly: Bool, table: [KeyBinding] = all) -> [(key: String, word: String)] {
        var seen = Set<Command>()
        var hints: [(String, String)] = []
        for binding in active(scopes: scopes, readOnly: readOnly, table: table) {
            guard let word = binding.hint, seen.insert(binding.command).inserted, let key = binding.keys.first else { continue }
            hints.append((key.description, word))
        }
        return hints
    }

    /// The help screen's rows: a heading per scope, then "keys  name  what it does"; then the
    /// mouse, then every other mode's keys as remapped (`ModeKeys`), named as `console.keys` names them.
    static func helpRows(readOnly: Bool, table: [KeyBinding] = all,
                         modes: [ModeBinding] = ModeKeys.all) -> [(keys: String, name: String, summary: String, heading: Bool)] {
        var rows: [(String, String, String, Bool)] = []
        let headings: [BindingScope: String] = [.global: "Everywhere", .list: "List pane", .detail: "Detail pane (receipt tree)",
                                                 .conflicts: "Conflicts tab"]
        for scope in BindingScope.allCases {
            let bindings = active(scopes: [scope], readOnly: readOnly, table: table)
            guard !bindings.isEmpty else { continue }
            rows.append(("", headings[scope] ?? scope.rawValue, "", true))
            rows += bindings.map { ($0.keyLabel, $0.command.rawValue, $0.command.summary, false) }
        }
        rows.append(("", "Mouse", "", true))
        rows.append(("click", "", "select a row, a tab or a tree line", false))
        rows.append(("wheel", "", "scroll the pane under the pointer", false))
        return rows + ModeKeys.helpRows(table: modes)
    }
}
