import Foundation
import PurchaseStore
import ReceiptCore

/// What the header says about where the console runs.
public struct ConsoleHeader: Sendable, Equatable {
    /// The database, as shown (a file name or host).
    public var database: String
    public var operatorName: String
    public var readOnly: Bool
    /// Who "Apple" is ("DEMO: Apple is the built-in simulator", "Apple").
    public var appleLabel: String

    public init(database: String, operatorName: String, readOnly: Bool, appleLabel: String) {
        self.database = database
        self.operatorName = operatorName
        self.readOnly = readOnly
        self.appleLabel = appleLabel
    }
}

/// A line for the operator at the bottom of the screen.
struct StatusMessage: Equatable, Sendable {
    enum Kind: Sendable { case info, success, error }
    let text: String
    let kind: Kind
}

/// The modal part of the screen.
enum Mode {
    case browse
    case filter(TextField)
    case command(TextField)
    /// The help overlay, scrolled by this many rows.
    case help(Int)
    case form(FormState)
    case confirm(Confirmation)
    case quitConfirm
    /// One whole value, read in a pager.
    case pager(PagerState)
    /// The refund requests queue.
    case refunds(RefundQueueState)
}

/// A re-verification running in the background.
struct JobState: Equatable, Sendable {
    let receiptIds: [Int64]
    /// What it is about ("receipt #812", "customer alice (3 receipts)").
    let label: String
    /// The tick it started at (the spinner turns with ticks).
    let startedTick: Int
    /// Whether Apple is asked one receipt at a time (the tagged rows), else a few at once.
    var serial = false
}

/// A confirmed change being written on the writer's connection, off the input loop (it may wait
/// for another writer's lock; Esc gives up the wait).
struct ApplyingState: Equatable, Sendable {
    /// "grant pro to alice".
    let label: String
    let startedTick: Int
}

/// The whole state of the console; views draw it, the reducer changes it.
struct ConsoleState {
    var header: ConsoleHeader
    var size: ScreenSize
    var tab: BrowseTable = .customers
    var lists: [BrowseTable: ListState] = Dictionary(uniqueKeysWithValues: BrowseTable.allCases.map { ($0, ListState()) })
    var focus: Focus = .list
    var detail = DetailState()
    var filter = BrowseFilter()
    var counts = BrowseCounts()
    /// How many rows of each list the filter matches (empty without a filter, or until counted).
    var matchCounts: [BrowseTable: MatchCount] = [:]
    /// The operator's zone for times (config `display.timeZone`, else `TZ`); `showUTC` overrides it.
    var displayZone = DisplayZone.utc
    var showUTC = false
    /// The order asked for each list (S cycles the column, s turns it round, `:sort`); absent:
    /// the list's own, by its key. The page says which order it is really in (`ListState.sort`).
    var sorts: [BrowseTable: BrowseSort] = [:]
    /// What Tab found in the `:` prompt when several commands or ids fit (shown as its hint).
    var completions: [String] = []
    /// Rows tagged with Space, per tab, in the order tagged (an action then applies to them all).
    var tags: [BrowseTable: [BrowseRow]] = [:]
    /// The customers of the current tab's tagged rows, each once, in the order tagged.
    var taggedCustomers: [String] {
        var seen = Set<String>()
        return (tags[tab] ?? []).compactMap(\.customerId).filter { seen.insert($0).inserted }
    }
    /// The binding table in force: `KeyBindings.all` with the config's remapped keys (`KeyMap`).
    var bindings = KeyBindings.all
    /// The other modes' keys in force: `ModeKeys.all` with the config's remapped keys.
    var modeBindings = ModeKeys.all
    /// Where files written by `e` and the pager's `s` go (nil: this console writes none).
    var exportFolder: String?
    /// The zone times are drawn in now.
    var shownZone: TimeZone { showUTC ? DisplayZone.utc : displayZone }
    /// What is wrong with the audit chain, as `audit --verify` would say it (nil: intact or not checked).
    var auditProblem: String?
    /// Set when a filter was just applied: once counted, the console moves to a tab with
    /// matches if the current one has none, and says where the matches are.
    var announceMatches = false
    var mode: Mode = .browse
    var message: StatusMessage?
    var job: JobState?
    var applying: ApplyingState?
    /// Work at Apple running in the background (one at a time).
    var appleJob: AppleJobState?
    /// The newest re-verification reports of this session, by receipt (at most 64 kept).
    var reports: [Int64: ReverifyReport] = [:]
    /// Ticks of the clock that drives the spinner (10 a second in the terminal).
    var tick = 0
    var finished = false
    /// The catalogue's entitlements, for the grant form.
    var catalogueEntitlements: [String] = []
    /// The catalogue's auto-renewable products, for the mass extension form.
    var subscriptionProducts: [String] = []
    /// The time the controller's clock gave for this action (expiry marks, the timeline's "now").
    var now = Date(timeIntervalSince1970: 0)

    enum Focus: Equatable { case list, detail }

    init(header: ConsoleHeader, size: ScreenSize) {
        self.header = header
        self.size = size
    }

    var layout: Layout { Layout(size: size) }

    var list: ListState {
        get { lists[tab] ?? ListState() }
        set { lists[tab] = newValue }
    }

    /// The binding scopes in force, most specific first.
    var scopes: [BindingScope] {
        var scopes: [BindingScope] = focus == .detail ? [.detail] : [.list]
        if tab == .conflicts { scopes.append(.conflicts) }
        scopes.append(.global)
        return scopes
    }

    /// The customer the changing actions apply to: the open detail's, else the selected row's.
    var selectedCustomer: String? {
        switch detail.target {
        case .customer(let id)?: return id
        case .receipt?, .transaction?, .order?:
            switch detail.model {
            case .receipt(let r): if let c = r.stored.record.customerId { return c }
            case .transaction(let t): return t.record.customerId
            case .order(let o): return o.order.customerId
            default: break
            }
        default: break
        }
        return list.selectedRow?.customerId
    }
}
