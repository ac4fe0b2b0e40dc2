/// Boxes drawn over the panes (the help screen is `HelpView`): forms, confirmations
/// that say exactly what will change, and the question before quitting during an action.
enum OverlayViews {
    static func drawForm(_ state: ConsoleState, _ form: FormState, on screen: Screen) {
        let rect = state.layout.overlay(maxColumns: 78, maxRows: form.fields.count * 3 + 6)
        Frame.clear(screen, rect)
        Frame.box(screen, rect, title: [Span(form.kind.title, CellStyle(.accent, bold: true))], focused: true)
        let inner = rect.inside
        let labelWidth = min(16, inner.columns / 4)
        var row = inner.row + 1
        // A form taller than the box scrolls so the focused field shows (the consumption form).
        let fitting = max(1, (inner.rows - 3 - (form.error == nil ? 0 : 2)) / 2)
        let first = max(0, min(form.focus - fitting + 1, form.fields.count - fitting))
        if first > 0 {
            screen.put(" ↑ \(first) more", row: inner.row, column: inner.column, style: .muted, maxWidth: inner.columns)
        }
        for (index, field) in form.fields.enumerated() where index >= first && index < first + fitting {
            let focused = index == form.focus
            screen.put(" " + DisplayWidth.fit(field.label, to: labelWidth), row: row, column: inner.column,
                       style: focused ? CellStyle(.accent, bold: true) : .bold)
            let column = inner.column + labelWidth + 2
            let room = inner.columns - labelWidth - 3
            switch field.kind {
            case .text(let text):
                if focused {
                    StatusBarView.drawPrompt("", visibleTail(text, room: room), hint: "", row: row, width: room, on: OffsetScreen(screen, column))
                } else {
                    screen.put(text.text.isEmpty ? "–" : text.text, row: row, column: column, style: text.text.isEmpty ? .muted : .plain, maxWidth: room)
                }
            case .choice(let options, let choice):
                let label = options.indices.contains(choice) ? options[choice] : ""
                let line: StyledLine = [Span("◀ ", CellStyle(.accent)), Span(label, focused ? CellStyle(bold: true, reverse: true) : .bold),
                                        Span(" ▶", CellStyle(.accent)), Span("  \(choice + 1)/\(options.count)", .muted)]
                screen.put(line, row: row, column: column, width: room)
            }
            if focused { screen.put(field.hint, row: row + 1, column: column, style: .muted, maxWidth: room) }
            row += 2
        }
        if first + fitting < form.fields.count {
            screen.put(" ↓ \(form.fields.count - first - fitting) more (Tab)", row: row, column: inner.column, style: .muted, maxWidth: inner.columns)
            row += 1
        }
        if let error = form.error {
            for (offset, line) in ConsoleFormat.wrap(error, width: inner.columns - 4).enumerated() where row + offset < inner.row + inner.rows - 1 {
                screen.put((offset == 0 ? " ✗ " : "   ") + line, row: row + offset, column: inner.column, style: CellStyle(.danger, bold: true),
                           maxWidth: inner.columns)
            }
        }
        let keys = state.modeBindings
        let footer = " \(ModeKeys.key(.nextField, in: .form, table: keys)) next field · \(ModeKeys.key(.submit, in: .form, table: keys)) on the last field shows what will change · \(ModeKeys.key(.cancel, in: .form, table: keys)) cancels"
        screen.put(ConsoleFormat.fitHints(footer, width: inner.columns),
                   row: inner.row + inner.rows - 1,
                   column: inner.column, style: .muted, maxWidth: inner.columns)
    }

    /// The end of a long text field, so the cursor stays in view.
    static func visibleTail(_ field: TextField, room: Int) -> TextField {
        guard room > 4, field.text.utf8.count >= room - 1 || DisplayWidth.of(field.text) >= room - 1 else { return field }
        let characters = Array(field.text)
        guard DisplayWidth.of(field.text) >= room - 1 else { return field }
        // Back from the cursor while the text before it still fits: linear in what is shown, so
        // a 50 KB paste draws in one pass.
        var start = min(field.cursor, characters.count)
        var width = 0
        while start > 0 {
            let next = DisplayWidth.of(String(characters[start - 1]))
            if width + next > room - 3 { break }
            width += next
            start -= 1
        }
        var shown = TextField(String(characters[start...]))
        shown.cursor = field.cursor - start
        return shown
    }

    static func drawConfirm(_ state: ConsoleState, _ confirmation: Confirmation, on screen: Screen) {
        let columns = min(state.size.columns - 4, 90)
        let lines = confirmation.lines.flatMap { Columns.wrap($0, width: columns - 4, indent: 4) }
        let rect = state.layout.overlay(maxColumns: 90, maxRows: lines.count + 5)
        Frame.clear(screen, rect)
        Frame.box(screen, rect, title: [Span(confirmation.title, CellStyle(.warning, bold: true))], focused: true)
        let inner = rect.inside
        for (offset, line) in lines.prefix(max(0, inner.rows - 2)).enumerated() {
            screen.put([Span(" ")] + line, row: inner.row + offset, column: inner.column, width: inner.columns)
        }
        let apply = ModeKeys.key(.apply, in: .preview, table: state.modeBindings)
        screen.put([Span(" " + apply, CellStyle(.accent, bold: true)), Span(" apply   "),
                    Span(ModeKeys.key(.cancel, in: .preview, table: state.modeBindings), CellStyle(.accent, bold: true)),
                    Span(" cancel (nothing changes until \(apply))", .muted)],
                   row: inner.row + inner.rows - 1, column: inner.column, width: inner.columns)
    }

    static func drawQuitConfirm(_ state: ConsoleState, on screen: Screen) {
        let rect = state.layout.overlay(maxColumns: 60, maxRows: 5)
        Frame.clear(screen, rect)
        Frame.box(screen, rect, title: [Span("Quit?", CellStyle(.warning, bold: true))], focused: true)
        let running = state.job.map { "\($0.label) is being re-verified." } ?? state.appleJob.map { "\($0.label): Apple has not answered yet." }
            ?? "an action is running."
        screen.put(" " + running, row: rect.row + 1, column: rect.column + 1, style: .plain, maxWidth: rect.columns - 2)
        screen.put([Span(" " + ModeKeys.key(.quit, in: .quit, table: state.modeBindings), CellStyle(.accent, bold: true)), Span(" quit (cancels it)   "),
                    Span(ModeKeys.key(.stay, in: .quit, table: state.modeBindings), CellStyle(.accent, bold: true)), Span(" stay")],
                   row: rect.row + 3, column: rect.column + 1, width: rect.columns - 2)
    }
}

/// A screen seen from a column offset (to reuse the prompt drawing inside forms).
final class OffsetScreen: Screen {
    let base: Screen
    let offset: Int

    init(_ base: Screen, _ offset: Int) {
        self.base = base
        self.offset = offset
    }

    var size: ScreenSize { base.size }
    var theme: Theme { base.theme }
    func clear() {}
    func present() {}

    @discardableResult
    func put(_ text: String, row: Int, column: Int, style: CellStyle, maxWidth: Int?) -> Int {
        base.put(text, row: row, column: column + offset, style: style, maxWidth: maxWidth)
    }
}
