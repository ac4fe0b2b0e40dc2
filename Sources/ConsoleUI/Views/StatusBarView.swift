import PurchaseStore
/// The two bottom rows: the prompt (`/` filter, `:` command) or the last message, and the hints
/// for the keys that apply here, written from the binding table.
enum StatusBarView {
    static func draw(_ state: ConsoleState, on screen: Screen) {
        let layout = state.layout
        let width = state.size.columns
        switch state.mode {
        case .filter(let field):
            // The query is checked as it is typed: what is wrong shows while the prompt is open.
            if let problem = filterProblem(field.text) {
                drawPrompt("/", field, hint: "  ✗ " + problem, hintStyle: CellStyle(.danger, bold: true), row: layout.promptRow, width: width, on: screen)
            } else {
                drawPrompt("/", field, hint: "  Enter searches every tab · Esc cancels · id or its start, name, email, env:sandbox status:conflict since:2024-01-01",
                           row: layout.promptRow, width: width, on: screen)
            }
        case .command(let field):
            let hint = state.completions.isEmpty
                ? "  a command by name (Tab completes names and ids): grant, revoke, restore, resolve, import, reverify, filter TEXT, tab NAME, help, quit"
                : "  " + state.completions.joined(separator: "  ")
            drawPrompt(":", field, hint: hint, row: layout.promptRow, width: width, on: screen)
        default:
            if let message = state.message {
                let style: CellStyle
                switch message.kind {
                case .info: style = .plain
                case .success: style = CellStyle(.ok)
                case .error: style = CellStyle(.danger, bold: true)
                }
                let mark = message.kind == .error ? "✗ " : message.kind == .success ? "✓ " : ""
                screen.put(" " + mark + message.text, row: layout.promptRow, column: 0, style: style, maxWidth: width)
            }
        }
        var hints: StyledLine = []
        for hint in modeHints(state) {
            let pair: StyledLine = [Span(hint.key, CellStyle(.accent, bold: true)), Span(" " + hint.word + "  ", .muted)]
            if hints.width + pair.width > width - 1 { break }
            hints += pair
        }
        screen.put([Span(" ")] + hints, row: layout.hintRow, column: 0, width: width)
    }

    /// The hints for the current mode: the binding table's while browsing, a form's own keys otherwise.
    static func modeHints(_ state: ConsoleState) -> [(key: String, word: String)] {
        switch state.mode {
        case .browse, .filter, .command: return KeyBindings.hints(scopes: state.scopes, readOnly: state.header.readOnly, table: state.bindings)
        case .help: return ModeKeys.hints(.help, table: state.modeBindings)
        case .pager: return ModeKeys.hints(.pager, table: state.modeBindings)
        case .form: return ModeKeys.hints(.form, table: state.modeBindings)
        case .confirm: return ModeKeys.hints(.preview, table: state.modeBindings)
        case .quitConfirm: return ModeKeys.hints(.quit, table: state.modeBindings)
        case .refunds: return ModeKeys.hints(.refunds, table: state.modeBindings)
        }
    }

    /// A prompt with the text typed so far and a block cursor.
    /// What is wrong with a search being typed, nil when it parses.
    static func filterProblem(_ text: String) -> String? {
        do {
            _ = try BrowseFilter(parsing: text)
            return nil
        } catch {
            let message = ConsoleFailure(error).message
            return message.hasPrefix("filter: ") ? String(message.dropFirst(8)) : message
        }
    }

    static func drawPrompt(_ sigil: String, _ field: TextField, hint: String, hintStyle: CellStyle = .muted, row: Int, width: Int, on screen: Screen) {
        var used = screen.put(sigil, row: row, column: 0, style: CellStyle(.accent, bold: true))
        let characters = Array(field.text)
        let before = String(characters.prefix(field.cursor))
        let at = field.cursor < characters.count ? String(characters[field.cursor]) : " "
        let after = field.cursor + 1 < characters.count ? String(characters[(field.cursor + 1)...]) : ""
        used += screen.put(before, row: row, column: used, style: .bold, maxWidth: width - used)
        used += screen.put(at, row: row, column: used, style: CellStyle(bold: true, reverse: true), maxWidth: width - used)
        used += screen.put(after, row: row, column: used, style: .bold, maxWidth: width - used)
        // Hints leave whole, never cut ("Esc cance"); a problem (✗ …) is one sentence, cut at the edge.
        let shown = hint.contains(" · ") ? ConsoleFormat.fitHints(hint, width: width - used) : hint
        if used < width { screen.put(shown, row: row, column: used, style: hintStyle, maxWidth: width - used) }
    }
}
