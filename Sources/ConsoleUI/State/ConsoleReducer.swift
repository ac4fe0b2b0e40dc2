import Foundation
import PurchaseStore
import ReceiptCore

/// The console's logic as a pure function: an action changes the state and names the effects
/// (database reads, ledger changes, a re-verification) the controller must run; their answers
/// come back as actions. No I/O happens here, so every key can be tested without a database.
enum ConsoleReducer {
    static func reduce(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .key(let key): return handleKey(&state, key)
        case .tick:
            state.tick += 1
            return []
        case .listLoaded(let table, let request, let result):
            switch result {
            case .success(let page):
                var list = state.lists[table] ?? ListState()
                list.apply(page, for: request, capacity: state.layout.listRows)
                state.lists[table] = list
                guard table == state.tab else { return [] }
                // A sort a broad search cannot follow cheaply: the page came in key order, and says why.
                if let note = page.sortNote, case .replace = request.purpose { state.message = StatusMessage(text: note, kind: .info) }
                return followSelection(&state)
            case .failure(let failure):
                state.message = StatusMessage(text: failure.message, kind: .error)
                state.lists[table]?.loaded = true
                return []
            }
        case .detailLoaded(let target, let model):
            let same = state.detail.target == target
            state.detail.target = target
            state.detail.model = model
            if !same {
                state.detail.cursor = 0
                state.detail.scroll = 0
                state.detail.expanded = DetailLines.defaultExpanded(model)
            }
            if let focus = state.detail.focusLine {
                state.detail.focusLine = nil
                if let index = DetailLines.build(state).firstIndex(where: { $0.spans.text.trimmingCharacters(in: .whitespaces).hasPrefix(focus) }) {
                    state.detail.cursor = index
                    state.detail.scroll = index
                }
            }
            clampDetailCursor(&state)
            return []
        case .countsLoaded(let counts):
            state.counts = counts
            return []
        case .valueCopied(let message):
            state.message = message
            return []
        case .reportLoaded(let text):
            state.mode = .pager(PagerState(title: "team report: this week and this month (UTC)", text: text))
            return []
        case .auditChecked(let problem):
            let was = state.auditProblem
            state.auditProblem = problem
            if let problem {
                state.message = StatusMessage(text: "audit log does not verify: \(problem) (receiptdesk audit --verify)", kind: .error)
            } else if was != nil {
                state.message = StatusMessage(text: "audit log verifies again", kind: .info)
            }
            return []
        case .matchCountsLoaded(let filter, let counts):
            guard filter == state.filter else { return [] }
            state.matchCounts = counts
            guard state.announceMatches else { return [] }
            state.announceMatches = false
            return announceMatches(&state)
        case .formOpened(let form):
            state.mode = .form(form)
            return []
        case .previewReady(let confirmation):
            state.mode = .confirm(confirmation)
            return []
        case .refused(let text):
            if case .form(var form) = state.mode {
                form.error = text
                state.mode = .form(form)
            } else {
                state.mode = .browse
                state.message = StatusMessage(text: text, kind: .error)
            }
            return []
        case .applyStarted(let label):
            state.applying = ApplyingState(label: label, startedTick: state.tick)
            state.mode = .browse
            state.message = StatusMessage(text: "\(label): writing… (Esc gives up if it has to wait for another operator)", kind: .info)
            return []
        case .applyEnded:
            state.applying = nil
            return []
        case .changeApplied(let text):
            state.message = StatusMessage(text: text, kind: .success)
            state.tags = [:]  // what was tagged was acted on
            return refreshAll(&state)
        case .changeFailed(let text):
            state.message = StatusMessage(text: text, kind: .error)
            return []
        case .liveViewRecovered(let failure):
            if state.message?.text == failure { state.message = StatusMessage(text: "live view: connected again", kind: .info) }
            return refreshAll(&state)
        case .jobFailed(let text):
            state.job = nil
            state.message = StatusMessage(text: text, kind: .error)
            return []
        case .backgroundChanged:
            return refreshAll(&state)
        case .refundsLoaded, .appleStarted, .appleProgress, .appleFinished:
            return reduceApple(&state, action)
        case .reverifyFinished(let reports, let cancelled):
            state.job = nil
            for report in reports { state.reports[report.receiptId] = report }
            if state.reports.count > 64, let oldest = state.reports.keys.sorted().first { state.reports[oldest] = nil }
            state.message = reverifyMessage(reports, cancelled: cancelled)
            if !reports.isEmpty { state.detail.focusLine = "Apple's answer" }
            return refreshAll(&state)
        }
    }

    /// The detail pane follows the selected row (unless something was opened from a line).
    static func followSelection(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard state.detail.stack.isEmpty else { return [] }
        guard let row = state.list.selectedRow else {
            state.detail.target = nil
            state.detail.model = .empty(state.list.loaded ? "nothing to show: the list is empty" : "loading…")
            return []
        }
        let target = DetailTarget(row)
        if target == state.detail.target { return [] }
        return [.loadDetail(target)]
    }

    /// Reloads counts, the current list (keeping the selection) and the detail; other lists reload when shown.
    static func refreshAll(_ state: inout ConsoleState) -> [ConsoleEffect] {
        for table in BrowseTable.allCases where table != state.tab { state.lists[table]?.loaded = false }
        var effects: [ConsoleEffect] = [.loadCounts, reloadCurrentList(state)]
        if !state.filter.isEmpty { effects.append(.loadMatchCounts(state.filter)) }
        if let target = state.detail.target { effects.append(.loadDetail(target)) }
        return effects
    }

    /// Reloads the current list from its first visible row, keeping the selected row.
    static func reloadCurrentList(_ state: ConsoleState) -> ConsoleEffect {
        let list = state.list
        let cursor: PageCursor = list.rows.first.map { .from($0.key) } ?? .first
        return .loadList(state.tab, ListRequest(cursor: cursor, limit: state.layout.listRows,
                                                purpose: .replace(keepKey: list.selectedRow?.key)))
    }

    /// Shows `table`, loading its first page when it is not loaded.
    static func show(_ state: inout ConsoleState, _ table: BrowseTable) -> [ConsoleEffect] {
        state.tab = table
        state.focus = .list
        state.detail.stack = []
        if state.list.loaded { return followSelection(&state) }
        state.detail.target = nil
        state.detail.model = .empty("loading…")
        return [.loadList(table, ListRequest(cursor: .first, limit: state.layout.listRows, purpose: .replace(keepKey: nil)))]
    }

    /// Sets the filter and reloads every list from its start.
    static func applyFilter(_ state: inout ConsoleState, _ filter: BrowseFilter) -> [ConsoleEffect] {
        state.filter = filter
        for table in BrowseTable.allCases { state.lists[table] = ListState() }
        state.detail.stack = []
        state.detail.target = nil
        state.focus = .list
        state.message = filter.isEmpty ? StatusMessage(text: "filter removed", kind: .info) : StatusMessage(text: "searching…", kind: .info)
        state.matchCounts = [:]
        state.announceMatches = !filter.isEmpty
        let load = ConsoleEffect.loadList(state.tab, ListRequest(cursor: .first, limit: state.layout.listRows, purpose: .replace(keepKey: nil)))
        return filter.isEmpty ? [load] : [load, .loadMatchCounts(filter)]
    }

    /// Says where a search's matches are ("3 customers · 12 transactions"), and moves to the
    /// first tab that has some when the current one has none.
    static func announceMatches(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let found = BrowseTable.allCases.compactMap { table -> (BrowseTable, MatchCount)? in
            guard let count = state.matchCounts[table], count.applies, count.count > 0 else { return nil }
            return (table, count)
        }
        guard !found.isEmpty else {
            state.message = StatusMessage(text: "no matches for / \(state.filter.text) in any list" + notQualifierNote(state.filter), kind: .info)
            return []
        }
        let singular: [BrowseTable: String] = [.customers: "customer", .orders: "order", .transactions: "transaction", .receipts: "receipt",
                                               .conflicts: "conflict", .audit: "audit entry"]
        let words = found.map { table, count in
            "\(ConsoleFormat.matchCount(count)) " + (count.count == 1 && !count.isLowerBound ? singular[table] ?? table.rawValue
                                                                                   : table == .audit ? "audit entries" : table.rawValue)
        }
        var text = "/ \(state.filter.text): " + words.joined(separator: " · ")
        if let note = state.list.sortNote { text += " · " + note }
        var effects: [ConsoleEffect] = []
        if let current = state.matchCounts[state.tab], current.applies, current.count == 0, !current.isLowerBound, let first = found.first {
            text += " (none in \(state.tab.rawValue): showing \(first.0.rawValue))"
            effects = show(&state, first.0)
        }
        state.message = StatusMessage(text: text, kind: .info)
        return effects
    }

    /// "; urn: is not a qualifier, searched as text (qualifiers: env, status, …)" when the search
    /// holds a word written like a qualifier that is none, else "".
    static func notQualifierNote(_ filter: BrowseFilter) -> String {
        guard !filter.notQualifiers.isEmpty else { return "" }
        let names = filter.notQualifiers.joined(separator: ", ")
        return "; \(names) \(filter.notQualifiers.count == 1 ? "is" : "are") not a qualifier, searched as text (qualifiers: "
            + BrowseFilter.qualifierNames.joined(separator: ", ") + ")"
    }

    static func clampDetailCursor(_ state: inout ConsoleState) {
        let count = DetailLines.build(state).count
        state.detail.cursor = min(max(0, state.detail.cursor), max(0, count - 1))
        let visible = state.layout.detailRows
        if state.detail.cursor < state.detail.scroll { state.detail.scroll = state.detail.cursor }
        if state.detail.cursor >= state.detail.scroll + visible { state.detail.scroll = state.detail.cursor - visible + 1 }
        state.detail.scroll = max(0, min(state.detail.scroll, max(0, count - visible)))
    }

    static func reverifyMessage(_ reports: [ReverifyReport], cancelled: Bool) -> StatusMessage {
        if cancelled {
            return StatusMessage(text: "re-verification cancelled (\(reports.count) answer\(reports.count == 1 ? "" : "s") arrived and were recorded)", kind: .info)
        }
        guard reports.count == 1, let only = reports.first else {
            let failed = reports.filter { $0.outcome == .failed }.count
            let verified = reports.filter { $0.outcome == .verified }.count
            let contradicted = reports.filter { $0.outcome == .contradicted }.count
            return StatusMessage(text: "re-verified \(Plural.of(reports.count, "receipt")): \(verified) verified, \(failed) failed"
                                     + (contradicted > 0 ? ", \(contradicted) CONTRADICT the local verdict" : ""),
                                 kind: failed > 0 || contradicted > 0 ? .error : .success)
        }
        switch only.outcome {
        case .failed:
            return StatusMessage(text: "receipt #\(only.receiptId): \(only.summary); nothing changed", kind: .error)
        case .rejected:
            return StatusMessage(text: "receipt #\(only.receiptId): Apple rejected it: \(only.summary)", kind: .error)
        case .skipped: return StatusMessage(text: "receipt #\(only.receiptId): \(only.summary)", kind: .info)
        case .contradicted: return StatusMessage(text: "receipt #\(only.receiptId): \(only.summary)", kind: .error)
        case .verified:
            let changes = only.changes.isEmpty ? "no changes" : "\(only.changes.count) change\(only.changes.count == 1 ? "" : "s") applied"
            return StatusMessage(text: "receipt #\(only.receiptId): \(only.summary); \(changes)", kind: .success)
        }
    }
}
