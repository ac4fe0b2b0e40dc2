import Foundation

/// Keys in the pager (`ModeKeys`, remappable; by default): j/k ↑↓ PgUp/PgDn g/G scroll, w wraps or
/// not, / searches and n finds the next match (`/` always starts a new query), y copies the whole
/// value to the terminal's clipboard (OSC 52), s saves it to a file (not a value shown once), Esc
/// or q closes. Its search and save prompts are text editing (Enter, Esc).
enum PagerLogic {
    static func handleKey(_ state: inout ConsoleState, _ pager: PagerState, _ key: KeyEvent) -> [ConsoleEffect] {
        var pager = pager
        // A "not found" (or any error) from before is stale once another key is pressed.
        ConsoleReducer.clearStaleError(&state)
        if let prompt = pager.prompt { return handlePrompt(&state, &pager, prompt, key) }
        let page = max(1, state.size.rows - 6)
        if case .mouse(let m) = key {
            if m.kind == .wheelDown { pager.scroll += 3 } else if m.kind == .wheelUp { pager.scroll = max(0, pager.scroll - 3) }
            state.mode = .pager(pager)
            return []
        }
        switch ModeKeys.action(for: key, in: .pager, table: state.modeBindings) {
        case .close?:
            state.mode = .browse
            return []
        case .down?: pager.scroll += 1
        case .up?: pager.scroll = max(0, pager.scroll - 1)
        case .pageDown?: pager.scroll += page
        case .pageUp?: pager.scroll = max(0, pager.scroll - page)
        case .top?: pager.scroll = 0
        case .bottom?: pager.scroll = Int.max / 2  // clamped when drawn
        case .wrap?:
            pager.wrap.toggle()
            pager.scroll = 0
        case .search?: pager.prompt = .search(TextField())  // a new query; next repeats the last one
        case .next?:
            if let line = pager.nextMatch(after: pager.matchLine ?? -1, pager.search) {
                pager.matchLine = line
                pager.scroll = line
                pager.wrap = false  // a match is found by its line; unwrapped, a line is a row
            }
        case .copy?:
            state.mode = .pager(pager)
            return [.copyToClipboard(pager.text, label: pager.title)]
        case .save? where pager.shownOnce:
            state.message = StatusMessage(text: "not saved: \(pager.title) is shown once and never stored; \(ModeKeys.key(.copy, in: .pager, table: state.modeBindings)) copies it",
                                          kind: .error)
        case .save?: pager.prompt = .save(TextField(defaultFileName(pager.title)))
        default: break
        }
        state.mode = .pager(pager)
        return []
    }

    private static func handlePrompt(_ state: inout ConsoleState, _ pager: inout PagerState, _ prompt: PagerPrompt,
                                     _ key: KeyEvent) -> [ConsoleEffect] {
        var effects: [ConsoleEffect] = []
        switch (prompt, key) {
        case (_, .escape): pager.prompt = nil
        case (.search(let field), .enter):
            pager.prompt = nil
            pager.search = field.text
            pager.matchLine = nil
            if let line = pager.nextMatch(after: -1, field.text) {
                pager.matchLine = line
                pager.scroll = line
                pager.wrap = false
            } else if !field.text.isEmpty {
                state.message = StatusMessage(text: "not found in \(pager.title): \(field.text)", kind: .error)
            }
        case (.save(let field), .enter):
            pager.prompt = nil
            let path = field.text.trimmingCharacters(in: .whitespaces)
            if !path.isEmpty { effects = [.writeFile(path: path, text: pager.text, label: pager.title)] }
        case (.search(var field), _):
            if field.edit(ConsoleReducer.promptKey(key)) { pager.prompt = .search(field) }
        case (.save(var field), _):
            if field.edit(ConsoleReducer.promptKey(key)) { pager.prompt = .save(field) }
        }
        state.mode = .pager(pager)
        return effects
    }

    /// "receipt-12-raw-artefact.txt" from "receipt #12: raw artefact".
    static func defaultFileName(_ title: String) -> String {
        let words = title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
        var name = String(words)
        while name.contains("--") { name = name.replacingOccurrences(of: "--", with: "-") }
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return String(name.prefix(60)) + ".txt"
    }
}
