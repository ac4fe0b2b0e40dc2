import Foundation
import PurchaseStore
import ReceiptCore

extension ConsoleReducer {
    /// A key for a one-line prompt: a paste keeps its text, its line breaks turned to spaces.
    static func promptKey(_ key: KeyEvent) -> KeyEvent {
        guard case .paste(let text) = key else { return key }
        return .paste(FormLogic.cleanPaste(text, into: "prompt"))
    }

    /// A key, routed by mode: prompts and forms take text, overlays take their own keys, and
    /// browsing looks the key up in the binding table.
    static func handleKey(_ state: inout ConsoleState, _ key: KeyEvent) -> [ConsoleEffect] {
        if case .resize(let size) = key { return resize(&state, size) }
        switch state.mode {
        case .browse: break
        case .filter(var field):
            switch key {
            case .escape: state.mode = .browse
            case .enter:
                state.mode = .browse
                do {
                    return applyFilter(&state, try BrowseFilter(parsing: field.text))
                } catch {
                    state.message = StatusMessage(text: ConsoleFailure(error).message, kind: .error)
                    state.mode = .filter(field)
                }
            default:
                if field.edit(promptKey(key)) { state.mode = .filter(field) }
            }
            return []
        case .command(var field):
            state.completions = []
            switch key {
            case .tab:
                let (text, candidates) = CommandCompletion.complete(field.text, state: state)
                state.mode = .command(TextField(text))
                state.completions = candidates
            case .escape: state.mode = .browse
            case .enter:
                state.mode = .browse
                clearStaleError(&state)
                return runCommandLine(&state, field.text)
            default:
                if field.edit(key) { state.mode = .command(field) }
            }
            return []
        case .help(let scroll):
            if case .mouse(let m) = key {
                state.mode = .help(m.kind == .wheelDown ? scroll + 3 : m.kind == .wheelUp ? max(0, scroll - 3) : scroll)
                return []
            }
            switch ModeKeys.action(for: key, in: .help, table: state.modeBindings) {
            case .down?: state.mode = .help(scroll + 1)
            case .up?: state.mode = .help(max(0, scroll - 1))
            case .pageDown?: state.mode = .help(scroll + state.layout.detailRows)
            case .pageUp?: state.mode = .help(max(0, scroll - state.layout.detailRows))
            default: state.mode = .browse  // close, and any other key
            }
            return []
        case .form(let form): return FormLogic.handleKey(&state, form, key)
        case .pager(let pager): return PagerLogic.handleKey(&state, pager, key)
        case .refunds(let queue): return RefundQueueLogic.handleKey(&state, queue, key)
        case .confirm(let confirmation):
            switch ModeKeys.action(for: key, in: .preview, table: state.modeBindings) {
            case .apply?:
                if let followUp = confirmation.followUp {
                    state.mode = .confirm(Confirmation(change: confirmation.change, title: confirmation.title + ": are you sure?", lines: followUp))
                    return []
                }
                state.mode = .browse
                if case .reverify(_, _, let ids?) = confirmation.change {
                    // Asked through the re-verification job, one receipt at a time.
                    let job = JobState(receiptIds: ids, label: "\(Plural.of(ids.count, "tagged receipt"))", startedTick: state.tick, serial: true)
                    state.job = job
                    state.message = StatusMessage(text: "re-verifying \(job.label) with \(state.header.appleLabel), one at a time… (Esc cancels)", kind: .info)
                    return [.startReverify(job)]
                }
                state.message = StatusMessage(text: "\(confirmation.change.name): applying…", kind: .info)
                return [.apply(confirmation.change)]
            case .cancel?:
                state.mode = .browse
                state.message = StatusMessage(text: "\(confirmation.change.name) cancelled: nothing changed", kind: .info)
            default: break
            }
            return []
        case .quitConfirm:
            switch ModeKeys.action(for: key, in: .quit, table: state.modeBindings) {
            case .quit?:
                state.finished = true
                return state.job == nil ? [] : [.cancelReverify]  // Apple's task ends with the controller
            case .stay?:
                state.mode = .browse
            default: break
            }
            return []
        }
        if case .mouse(let mouse) = key { return handleMouse(&state, mouse) }
        if key == .escape, state.applying != nil { return [.cancelApply] }
        if key == .escape, state.job != nil { return run(&state, .cancel) }
        guard let command = KeyBindings.command(for: key, scopes: state.scopes, table: state.bindings) else { return [] }
        clearStaleError(&state)
        return run(&state, command)
    }

    /// An old error leaves the status line with the next command; one that fails says its own.
    /// A lost live view stays until it is back.
    static func clearStaleError(_ state: inout ConsoleState) {
        if let message = state.message, message.kind == .error, !message.text.hasPrefix("live view:") { state.message = nil }
    }

    /// `:name [argument]`: any command by name; `:filter TEXT` and `:tab NAME` take an argument.
    static func runCommandLine(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return [] }
        let name = String(trimmed.prefix { !$0.isWhitespace }).lowercased()
        let argument = trimmed.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        let aliases: [String: Command] = ["q": .quit, "exit": .quit, "h": .help, "?": .help, "verify": .reverify,
                                          "owner": .resolve, "resolve-conflict": .resolve, "reload": .refresh]
        if name == "tab", let table = BrowseTable.allCases.first(where: { $0.rawValue.hasPrefix(argument.lowercased()) && !argument.isEmpty }) {
            return show(&state, table)
        }
        if name == "sort" && !argument.isEmpty {
            do {
                return applySort(&state, try BrowseSort(parsing: argument, table: state.tab))
            } catch {
                state.message = StatusMessage(text: ConsoleFailure(error).message, kind: .error)
                return []
            }
        }
        if name == "filter" {
            do {
                return applyFilter(&state, try BrowseFilter(parsing: argument))
            } catch {
                state.message = StatusMessage(text: ConsoleFailure(error).message, kind: .error)
                return []
            }
        }
        guard let command = Command(rawValue: name) ?? aliases[name] else {
            let known = Command.allCases.filter { !(state.header.readOnly && $0.changesData) }.map(\.rawValue)
            let near = known.filter { $0.hasPrefix(String(name.prefix(2))) }
            state.message = StatusMessage(text: "unknown command '\(name)'" + (near.isEmpty ? "; :help lists them" : "; did you mean \(near.joined(separator: ", "))?"),
                                          kind: .error)
            return []
        }
        if command == .command { return [] }
        return run(&state, command)
    }

    /// The terminal changed size: the list window is refilled to the new height around the selection.
    static func resize(_ state: inout ConsoleState, _ size: ScreenSize) -> [ConsoleEffect] {
        guard size != state.size else { return [] }
        state.size = size
        for table in BrowseTable.allCases where table != state.tab { state.lists[table]?.loaded = false }
        clampDetailCursor(&state)
        guard state.list.loaded, !state.layout.isTooSmall else { return [] }
        return [reloadCurrentList(state)]
    }

    /// Clicks select rows, tabs and detail lines; the wheel scrolls the pane under the pointer.
    static func handleMouse(_ state: inout ConsoleState, _ mouse: MouseEvent) -> [ConsoleEffect] {
        let layout = state.layout
        if mouse.kind != .click {
            let command: Command = mouse.kind == .wheelDown ? .down : .up
            state.focus = layout.detailRect.contains(row: mouse.row, column: mouse.column) ? .detail : .list
            var effects: [ConsoleEffect] = []
            for _ in 0..<3 { effects += run(&state, command) }
            return effects
        }
        if mouse.row == layout.tabRow {
            if let table = TabBarView.tab(at: mouse.column, state: state) { return show(&state, table) }
            return []
        }
        if layout.listRect.contains(row: mouse.row, column: mouse.column) {
            state.focus = .list
            let index = mouse.row - layout.firstListRow
            guard index >= 0, index < state.list.rows.count else { return [] }
            state.lists[state.tab]?.selected = index
            state.detail.stack = []
            return followSelection(&state)
        }
        if layout.detailRect.contains(row: mouse.row, column: mouse.column) {
            let line = state.detail.scroll + mouse.row - layout.firstDetailRow
            guard line >= 0, line < DetailLines.build(state).count else {
                state.focus = .detail
                return []
            }
            let again = state.focus == .detail && state.detail.cursor == line
            state.focus = .detail
            state.detail.cursor = line
            return again ? run(&state, .toggle) : []
        }
        return []
    }
}
