import PurchaseStore

/// Sorting a list by its columns: `S` goes to the list's next sortable column (in the direction
/// it starts in: dates newest first, names and products A to Z; after the last, back to the
/// list's own order by its key), `s` turns the sort round, `:sort COLUMN [asc|desc]` picks one.
/// Each is a keyset walk over an index (`Browser.page(sort:)`), so paging stays as cheap.
extension ConsoleReducer {
    /// S: the next column of `BrowseSort.columns`; a list with only its key turns round instead.
    static func cycleSort(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let table = state.tab
        let columns = BrowseSort.columns(table)
        let current = state.sorts[table] ?? .own(table)
        guard columns.count > 1 else { return flipSort(&state) }
        let index = columns.firstIndex(of: current.column) ?? 0
        return applySort(&state, .starting(columns[(index + 1) % columns.count], on: table))
    }

    /// s: the same column, the other way.
    static func flipSort(_ state: inout ConsoleState) -> [ConsoleEffect] {
        var sort = state.sorts[state.tab] ?? .own(state.tab)
        sort.descending.toggle()
        return applySort(&state, sort)
    }

    /// Sorts the current list by `sort` and reloads it from its first row.
    static func applySort(_ state: inout ConsoleState, _ sort: BrowseSort) -> [ConsoleEffect] {
        let table = state.tab
        state.sorts[table] = sort == .own(table) ? nil : sort
        let others = BrowseSort.columns(table).count > 1 ? "S next · s flips" : "S or s flips"
        state.message = StatusMessage(text: "\(table.title) by \(sort.description): \(words(sort)) · \(others)", kind: .info)
        state.list = ListState()
        state.detail.stack = []
        return [.loadList(table, ListRequest(cursor: .first, limit: state.layout.listRows, purpose: .replace(keepKey: nil)))]
    }

    /// "newest first", "A to Z", and where rows without the value go.
    static func words(_ sort: BrowseSort) -> String {
        switch sort.column {
        case .name: return sort.descending ? "Z to A, no name last" : "A to Z, no name last"
        case .product: return sort.descending ? "Z to A" : "A to Z"
        case .expires: return sort.descending ? "latest first, none last" : "soonest first, none last"
        case .purchased: return sort.descending ? "newest first, undated last" : "oldest first, undated last"
        case .id, .created, .received: return sort.descending ? "newest first" : "oldest first"
        }
    }
}
