import Foundation
import PurchaseStore
import ReceiptCore

extension ConsoleReducer {
    /// Runs one command from the binding table or the command line.
    static func run(_ state: inout ConsoleState, _ command: Command) -> [ConsoleEffect] {
        if command.changesData {
            if state.header.readOnly {
                state.message = StatusMessage(text: "read-only (--read-only): '\(command.rawValue)' is not available; nothing changed",
                                              kind: .error)
                return []
            }
            if let job = state.job {
                state.message = StatusMessage(text: "\(job.label) is being re-verified: wait for it, or Esc to cancel", kind: .error)
                return []
            }
        }
        switch command {
        case .down, .up, .pageDown, .pageUp, .top, .bottom:
            return state.focus == .list ? moveInList(&state, command) : moveInDetail(&state, command)
        case .nextTab, .previousTab:
            let all = BrowseTable.allCases
            let index = all.firstIndex(of: state.tab) ?? 0
            let next = (index + (command == .nextTab ? 1 : all.count - 1)) % all.count
            return show(&state, all[next])
        case .customers: return show(&state, .customers)
        case .orders: return show(&state, .orders)
        case .transactions: return show(&state, .transactions)
        case .receipts: return show(&state, .receipts)
        case .conflicts: return show(&state, .conflicts)
        case .audit: return show(&state, .audit)
        case .open:
            guard state.list.selectedRow != nil else { return [] }
            state.focus = .detail
            return followSelection(&state)
        case .back:
            if state.detail.stack.popLast() != nil {
                let target = state.detail.stack.last ?? state.list.selectedRow.map(DetailTarget.init)
                state.detail.target = nil
                return target.map { [.loadDetail($0)] } ?? []
            }
            state.focus = .list
            return []
        case .toggle, .expand, .collapse, .expandAll: return treeCommand(&state, command)
        case .filter:
            state.mode = .filter(TextField(state.filter.text))
            return []
        case .clearFilter: return applyFilter(&state, BrowseFilter())
        case .command:
            state.mode = .command(TextField())
            return []
        case .help:
            state.mode = .help(0)
            return []
        case .utc:
            state.showUTC.toggle()
            state.message = StatusMessage(text: "times in \(DisplayZone.describe(state.shownZone, at: state.now))", kind: .info)
            return []
        case .export:
            guard let customer = state.selectedCustomer else {
                state.message = StatusMessage(text: "export: select or open a customer first", kind: .error)
                return []
            }
            return [.exportCase(customer)]
        case .view, .copy:
            guard let value = SelectedValue.current(state) else {
                state.message = StatusMessage(text: "nothing selected to \(command == .view ? "read" : "copy")", kind: .error)
                return []
            }
            if command == .copy { return [.copyToClipboard(value.text, label: value.title)] }
            state.mode = .pager(PagerState(title: value.title, text: value.text))
            return []
        case .refresh:
            state.message = StatusMessage(text: "reloaded", kind: .info)
            return refreshAll(&state) + [.checkAudit]
        case .cancel:
            guard state.job != nil else {
                if state.focus == .detail { return run(&state, .back) }
                state.message = nil
                return []
            }
            state.message = StatusMessage(text: "cancelling the re-verification…", kind: .info)
            return [.cancelReverify]
        case .quit:
            if state.job != nil || state.appleJob != nil {
                state.mode = .quitConfirm
            } else {
                state.finished = true
            }
            return []
        case .report:
            state.message = StatusMessage(text: "reading the team report…", kind: .info)
            return [.loadReport]
        case .tag:
            guard let row = state.list.selectedRow else { return [] }
            var tagged = state.tags[state.tab] ?? []
            if let index = tagged.firstIndex(where: { $0.key == row.key }) { tagged.remove(at: index) } else { tagged.append(row) }
            state.tags[state.tab] = tagged.isEmpty ? nil : tagged
            state.message = StatusMessage(text: tagged.isEmpty ? "no row tagged" : TaggedActions.status(state, tagged: tagged.count), kind: .info)
            return moveInList(&state, .down)
        case .sort: return cycleSort(&state)
        case .flip: return flipSort(&state)
        case .untag:
            state.tags[state.tab] = nil
            state.message = StatusMessage(text: "no row tagged", kind: .info)
            return []
        case .reverify: return startReverify(&state)
        case .grant, .revoke, .restore, .resolve, .importArtefact, .note, .erase, .grantBatch: return FormLogic.open(&state, command)
        case .appleStatus, .extend, .setToken, .history, .lookupOrder, .massExtend, .notifications, .refunds, .offer:
            return runApple(&state, command)
        }
    }

    /// Moves the list selection; past an edge of the window, asks for rows beyond it by key.
    static func moveInList(_ state: inout ConsoleState, _ command: Command) -> [ConsoleEffect] {
        var list = state.list
        let capacity = state.layout.listRows
        let table = state.tab
        func request(_ cursor: PageCursor, _ limit: Int, _ purpose: ListRequest.Purpose) -> [ConsoleEffect] {
            [.loadList(table, ListRequest(cursor: cursor, limit: limit, purpose: purpose))]
        }
        // Past the last row, a scan that stopped early continues from where it stopped.
        // (A scan's stopping point lies beyond the rows it found, so no key comparison is needed.)
        let afterKey = (list.scannedForward ? list.scannedThrough : nil) ?? list.rows.last?.key
        switch command {
        case .down:
            if list.selected + 1 < list.rows.count {
                list.selected += 1
                state.list = list
                return followSelection(&state)
            }
            guard list.moreAfter, let key = afterKey else { return [] }
            return request(.after(key), 1, .step(forward: true))
        case .up:
            if list.selected > 0 {
                list.selected -= 1
                state.list = list
                return followSelection(&state)
            }
            guard list.moreBefore, let first = list.rows.first else { return [] }
            return request(.before(first.key), 1, .step(forward: false))
        case .pageDown:
            guard list.moreAfter, let key = afterKey else {
                list.selected = max(0, list.rows.count - 1)
                state.list = list
                return followSelection(&state)
            }
            return request(.after(key), capacity, .page(forward: true))
        case .pageUp:
            guard list.moreBefore, let first = list.rows.first else {
                list.selected = 0
                state.list = list
                return followSelection(&state)
            }
            return request(.before(first.key), capacity, .page(forward: false))
        case .top: return request(.first, capacity, .replace(keepKey: nil))
        case .bottom: return request(.last, capacity, .replace(keepKey: nil))
        default: return []
        }
    }

    /// Moves the detail pane's line cursor.
    static func moveInDetail(_ state: inout ConsoleState, _ command: Command) -> [ConsoleEffect] {
        let count = DetailLines.build(state).count
        let page = state.layout.detailRows
        switch command {
        case .down: state.detail.cursor += 1
        case .up: state.detail.cursor -= 1
        case .pageDown:
            state.detail.cursor += page
            state.detail.scroll += page
        case .pageUp:
            state.detail.cursor -= page
            state.detail.scroll -= page
        case .top: state.detail.cursor = 0
        case .bottom: state.detail.cursor = count - 1
        default: break
        }
        clampDetailCursor(&state)
        return []
    }

    /// Folding and opening from the detail pane's cursor line.
    static func treeCommand(_ state: inout ConsoleState, _ command: Command) -> [ConsoleEffect] {
        let lines = DetailLines.build(state)
        if command == .expandAll {
            state.detail.expanded.formUnion(DetailLines.allPaths(state.detail.model))
            state.message = StatusMessage(text: "every node unfolded", kind: .info)
            return []
        }
        guard lines.indices.contains(state.detail.cursor) else { return command == .collapse ? run(&state, .back) : [] }
        let line = lines[state.detail.cursor]
        switch (command, line.action) {
        case (.toggle, .toggle(let path)?), (.expand, .toggle(let path)?):
            if state.detail.expanded.contains(path) {
                if command == .toggle { state.detail.expanded.remove(path) } else { state.detail.cursor += 1 }
            } else {
                state.detail.expanded.insert(path)
            }
        case (.toggle, .open(let target)?), (.expand, .open(let target)?):
            state.detail.stack.append(target)
            return [.loadDetail(target)]
        case (.collapse, _):
            if let path = line.treePath {
                if state.detail.expanded.contains(path), case .toggle? = line.action {
                    state.detail.expanded.remove(path)
                } else if let dot = path.lastIndex(of: ".") {
                    let parent = String(path[..<dot])
                    if let index = lines.firstIndex(where: { $0.treePath == parent }) { state.detail.cursor = index }
                } else {
                    return run(&state, .back)
                }
            } else {
                return run(&state, .back)
            }
        default: break
        }
        clampDetailCursor(&state)
        return []
    }

    /// `r`: the tagged rows (previewed first), else the open receipt, or every receipt of the open customer.
    static func startReverify(_ state: inout ConsoleState) -> [ConsoleEffect] {
        if let change = TaggedActions.reverify(state) { return [.preview(change)] }
        var ids: [Int64] = []
        var label = ""
        switch state.detail.model {
        case .receipt(let receipt):
            ids = [receipt.stored.record.receiptId]
            label = "receipt #\(receipt.stored.record.receiptId)"
        case .customer(let customer):
            ids = customer.summary.receipts.map(\.receiptId)
            label = "customer \(customer.summary.customerId) (\(ids.count) receipt\(ids.count == 1 ? "" : "s"))"
        case .transaction(let t):
            ids = [t.record.firstReceiptId]
            label = "receipt #\(t.record.firstReceiptId)"
        default: break
        }
        guard !ids.isEmpty else {
            state.message = StatusMessage(text: "re-verify: open a receipt, a transaction or a customer with receipts first", kind: .error)
            return []
        }
        let job = JobState(receiptIds: ids, label: label, startedTick: state.tick)
        state.job = job
        state.message = StatusMessage(text: "re-verifying \(label) with \(state.header.appleLabel)… (Esc cancels)", kind: .info)
        return [.startReverify(job)]
    }
}
