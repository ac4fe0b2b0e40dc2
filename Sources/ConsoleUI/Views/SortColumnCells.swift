import Foundation
import PurchaseStore

/// The list column a sort is shown on: the column's own title where the list shows it (name,
/// product), or a date column added after the id while it sorts (a transaction's purchase date
/// is not otherwise on the list).
enum SortColumnCells {
    /// The title of the list column that sorts by `column`.
    static func title(_ column: BrowseSort.Column) -> String {
        addedTitle(column) ?? column.rawValue
    }

    /// The title of the date column added while `column` sorts; nil when the list shows it already.
    static func addedTitle(_ column: BrowseSort.Column) -> String? {
        switch column {
        case .created, .purchased, .expires, .received: return column.rawValue
        case .id, .name, .product: return nil
        }
    }

    /// A row's cell in the added column: the day, or a muted dash when it has none.
    static func cell(_ row: BrowseRow, _ column: BrowseSort.Column) -> ListColumns.Cell {
        let date: Date?
        switch (row, column) {
        case (.customer(_, let c), .created): date = c.createdAt
        case (.transaction(_, let t), .purchased): date = t.record.purchaseDate
        case (.transaction(_, let t), .expires): date = t.record.expiresDate
        case (.receipt(_, let r), .received): date = r.record.importedAt
        default: date = nil
        }
        return date.map { ListColumns.Cell(ConsoleFormat.date($0)) } ?? ListColumns.Cell("–", .muted)
    }
}
