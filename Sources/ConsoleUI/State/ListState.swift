import PurchaseStore

/// The window of one list the pane shows: exactly the rows on screen (never the table), the
/// selected one, and whether more lie before or after. Moving past an edge asks for rows beyond
/// it by key (`ListRequest`), so scrolling costs the same anywhere in a million rows.
struct ListState: Equatable {
    var rows: [BrowseRow] = []
    var selected = 0
    var moreBefore = false
    var moreAfter = false
    /// False until the first page arrives, and again after the filter or data changed.
    var loaded = false
    /// A filter without an index stopped scanning here (continue with PgDn / ↓).
    var scannedThrough: BrowseKey?
    /// Whether that scan went forward in display order (then ↓ / PgDn go on from it).
    var scannedForward = true
    /// Filter words this list ignores.
    var ignored: [String] = []
    /// The order the rows are in, as the last page said (nil: the list's own, by its key).
    var sort: BrowseSort?
    /// Why the rows are in key order rather than the sort asked for (a broad search), if they are.
    var sortNote: String?

    var selectedRow: BrowseRow? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// Merges a page that answered `request` into the window of `capacity` rows.
    mutating func apply(_ page: BrowsePage, for request: ListRequest, capacity: Int) {
        let capacity = max(1, capacity)
        loaded = true
        ignored = page.ignored
        sort = page.sort
        sortNote = page.sortNote
        let continuing = page.scannedThrough
        switch request.purpose {
        case .replace(let keepKey):
            let previousFirst = rows.first?.key
            let hadMoreBefore = moreBefore
            rows = Array(page.rows.prefix(capacity))
            selected = keepKey.flatMap { key in rows.firstIndex { $0.key == key } } ?? (request.cursor == .last ? rows.count - 1 : 0)
            switch request.cursor {
            case .first: (moreBefore, moreAfter) = (false, page.isFull || continuing != nil)
            case .last: (moreBefore, moreAfter) = (page.isFull, false)
            default:
                // Reloading from the same first row: what lay before it still does.
                let sameStart = previousFirst != nil && rows.first?.key == previousFirst
                (moreBefore, moreAfter) = (sameStart ? hadMoreBefore : true, page.isFull || continuing != nil)
            }
        case .step(let forward):
            // A repeated request (the wheel sends several) must not add a row twice.
            if let row = page.rows.first, rows.contains(where: { $0.key == row.key }) { return }
            guard let row = page.rows.first else {
                if forward { moreAfter = continuing != nil } else { moreBefore = false }
                scannedThrough = continuing
                scannedForward = request.isForward
                return
            }
            if forward {
                rows.append(row)
                if rows.count > capacity { rows.removeFirst(rows.count - capacity); moreBefore = true }
                selected = rows.count - 1
                moreAfter = page.isFull || page.rows.count > 1 || continuing != nil
            } else {
                rows.insert(row, at: 0)
                if rows.count > capacity { rows.removeLast(rows.count - capacity); moreAfter = true }
                selected = 0
                moreBefore = page.isFull || page.rows.count > 1
            }
        case .page(let forward):
            let known = Set(rows.map(\.key))
            let page = BrowsePage(rows: page.rows.filter { !known.contains($0.key) }, isFull: page.isFull,
                                  scannedThrough: page.scannedThrough, ignored: page.ignored)
            guard !page.rows.isEmpty else {
                selected = forward ? max(0, rows.count - 1) : 0
                if forward { moreAfter = continuing != nil } else { moreBefore = false }
                scannedThrough = continuing
                scannedForward = request.isForward
                return
            }
            if forward {
                let merged = rows + page.rows
                let dropped = max(0, merged.count - capacity)
                rows = Array(merged.suffix(capacity))
                selected = min(rows.count - 1, max(0, selected + capacity - dropped))
                moreBefore = moreBefore || dropped > 0
                moreAfter = page.isFull || continuing != nil
            } else {
                let merged = page.rows + rows
                rows = Array(merged.prefix(capacity))
                selected = min(rows.count - 1, max(0, selected + page.rows.count - capacity))
                moreAfter = moreAfter || merged.count > capacity
                moreBefore = page.isFull
            }
        }
        scannedThrough = continuing
        scannedForward = request.isForward
    }
}

/// A request for rows of a list: where from, how many, and what to do with them.
struct ListRequest: Equatable, Sendable {
    enum Purpose: Equatable, Sendable {
        /// Replace the window, selecting the row with this key when it is there.
        case replace(keepKey: BrowseKey?)
        /// One row past an edge (the selection moved off the window).
        case step(forward: Bool)
        /// A page past an edge.
        case page(forward: Bool)
    }

    let cursor: PageCursor
    let limit: Int
    let purpose: Purpose

    /// Whether the rows asked for lie forward of the cursor in display order.
    var isForward: Bool {
        switch purpose {
        case .step(let forward), .page(let forward): return forward
        case .replace: return cursor != .last
        }
    }
}
