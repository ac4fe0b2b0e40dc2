import PurchaseStore

/// Tab in the `:` prompt, as in a shell: the first word completes to a command name, the
/// argument of `tab` to a tab, those of `sort` to a column of the list and then asc / desc, any other argument to an id of the rows on screen (customers,
/// transactions, orders, receipts as `#12`) — no query, only what the list already holds. One
/// candidate completes; several complete to what they share and are listed in the hint.
enum CommandCompletion {
    /// The most candidates listed.
    static let shownLimit = 12

    /// The completed text and the candidates (empty when there was one, or none).
    static func complete(_ text: String, state: ConsoleState) -> (text: String, candidates: [String]) {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if words.count <= 1 {
            let names = Command.allCases.filter { !(state.header.readOnly && $0.changesData) && $0 != .command }.map(\.rawValue) + ["tab"]
            return finish(prefix: "", typed: words.first ?? "", candidates: names, addSpace: { ["tab", "filter", "sort"].contains($0) })
        }
        let head = words.dropLast().joined(separator: " ") + " "
        let typed = words.last ?? ""
        if words.first?.lowercased() == "tab" && words.count == 2 {
            return finish(prefix: head, typed: typed, candidates: BrowseTable.allCases.map(\.rawValue), addSpace: { _ in false })
        }
        if words.first?.lowercased() == "sort" && words.count == 2 {
            return finish(prefix: head, typed: typed, candidates: BrowseSort.columns(state.tab).map(\.rawValue), addSpace: { _ in true })
        }
        if words.first?.lowercased() == "sort" && words.count == 3 {
            return finish(prefix: head, typed: typed, candidates: ["asc", "desc"], addSpace: { _ in false })
        }
        return finish(prefix: head, typed: typed, candidates: ids(state), addSpace: { _ in true })
    }

    /// The ids the rows on screen show, each once, in list order.
    static func ids(_ state: ConsoleState) -> [String] {
        var seen = Set<String>()
        var ids: [String] = []
        for row in state.list.rows + (state.tags[state.tab] ?? []) {
            var own: [String] = []
            switch row {
            case .customer(_, let c): own = [c.customerId]
            case .order(_, let o): own = [o.orderId, o.customerId]
            case .transaction(_, let t): own = [t.record.transactionId, t.record.customerId]
            case .receipt(_, let r): own = ["#\(r.record.receiptId)"] + (r.record.customerId.map { [$0] } ?? [])
            case .conflict(_, let k): own = [k.transactionId, k.ownerCustomerId, k.claimantCustomerId]
            case .audit(_, let a): own = [a.target]
            }
            for id in own where seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    private static func finish(prefix: String, typed: String, candidates: [String],
                               addSpace: (String) -> Bool) -> (text: String, candidates: [String]) {
        let matching = candidates.filter { $0.lowercased().hasPrefix(typed.lowercased()) }
        guard let first = matching.first else { return (prefix + typed, []) }
        if matching.count == 1 { return (prefix + first + (addSpace(first) ? " " : ""), []) }
        var shared = first
        for candidate in matching.dropFirst() {
            while !candidate.lowercased().hasPrefix(shared.lowercased()) { shared.removeLast() }
        }
        let kept = shared.count > typed.count ? shared : typed
        return (prefix + kept, Array(matching.prefix(shownLimit)) + (matching.count > shownLimit ? ["… \(matching.count - shownLimit) more"] : []))
    }
}
