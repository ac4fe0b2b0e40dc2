import Foundation
import PurchaseStore
import ReceiptCore

/// What the console runs against: the ledger (and so the database), Apple (or the simulator
/// standing in for it), who the operator is, whether changes are allowed, and the clock.
public struct ConsoleEnvironment {
    /// The ledger every read and change goes through.
    public let ledger: PurchaseLedger
    /// Serialises database use between the screen and background re-verifications.
    public let lock: LedgerLock
    /// Apple for re-verification; nil when none is configured (then `r` says so).
    public let apple: AppleService?
    /// What the header says when `apple` is nil ("Apple unavailable: …").
    public let appleNote: String?
    public let operatorName: String
    /// No changing action is shown, offered or run.
    public let readOnly: Bool
    /// The database as the header names it.
    public let databaseLabel: String
    /// "now" for everything the console shows and asks the ledger to do.
    public let clock: @Sendable () -> Date
    /// The live team view: what says another operator changed the database (LISTEN/NOTIFY on
    /// PostgreSQL, the audit head polled on SQLite; `ChangeFeeds.make`). It must use the
    /// ledger's own connection (it is used under `lock`). Nil: the screen changes only when
    /// this console changes something.
    public let changes: ChangeNotifying?
    /// The least time between two looks at `changes` (the terminal ticks every 100 ms).
    public let changeInterval: TimeInterval
    /// A ledger on a connection of its own that confirmed changes are written through, on a
    /// thread of their own: a change that waits for another operator's lock never freezes the
    /// screen, and Esc gives up the wait. Nil: changes run on the screen's thread (tests).
    public var writer: PurchaseLedger?
    /// Puts text on the terminal's clipboard (the terminal console writes OSC 52); nil where
    /// there is no terminal. Returns whether it was sent.
    public var clipboard: (@Sendable (String) -> Bool)?
    /// The zone the console shows times in (UTC unless the command sets the operator's).
    public var timeZone = DisplayZone.utc
    /// Where `e` writes case files and where a value saved under a relative name goes (made
    /// when the first file is written); nil (the default: tests, the fuzzer, the soak) writes no
    /// file at all. The terminal console sets `ExportFolder.resolve`'s, never the current directory.
    public var exportDirectory: String?
    /// A search to open at (`console --search TEXT`), as if typed after `/`.
    public var initialFilter: BrowseFilter?
    /// The key bindings (`KeyMap.apply` remaps them from the config's `console.keys`).
    var keyBindings = KeyBindings.all
    /// The other modes' keys (`KeyMap.applyModes` remaps them from `console.keys` entries named `MODE.ACTION`).
    var modeBindings = ModeKeys.all

    /// Checks a `console.keys` setting without a console: the error `remapKeys` would throw.
    public static func checkKeys(_ keys: [String: [String]]) throws {
        _ = try KeyMap.apply(keys, to: KeyBindings.all)
        _ = try KeyMap.applyModes(keys, to: ModeKeys.all)
    }

    /// Remaps keys as the config's `console.keys` says (a command name, or `MODE.ACTION` such as
    /// `pager.wrap`, → key names); the error names the mode, command or key that is wrong.
    public mutating func remapKeys(_ keys: [String: [String]]) throws {
        keyBindings = try KeyMap.apply(keys, to: KeyBindings.all)
        modeBindings = try KeyMap.applyModes(keys, to: ModeKeys.all)
    }

    /// How often, and at most how many times, a mass extension's progress is asked of Apple.
    public var applePollInterval: Duration = .seconds(5)
    public var appleMaxPolls = 120

    /// Acting at Apple (App Store Server API) through PurchaseStore, recorded and audited in the
    /// ledger; nil when Apple has no Server API configured (then those actions say so).
    var appleActions: AppleActions? {
        apple?.serverAPI.map { AppleActions(ledger: lock, client: $0) }
    }

    /// - Parameters:
    ///   - lock: pass the lock other users of `ledger` share, if any; a new one otherwise.
    public init(ledger: PurchaseLedger, lock: LedgerLock? = nil, apple: AppleService?, appleNote: String? = nil, operatorName: String, readOnly: Bool,
                databaseLabel: String, clock: @escaping @Sendable () -> Date = { Date() }, changes: ChangeNotifying? = nil,
                changeInterval: TimeInterval = 0.5) {
        self.changes = changes
        self.changeInterval = changeInterval
        self.ledger = ledger
        self.lock = lock ?? LedgerLock(ledger)
        self.apple = apple
        self.appleNote = appleNote
        self.operatorName = operatorName
        self.readOnly = readOnly
        self.databaseLabel = databaseLabel
        self.clock = clock
    }
}

/// Re-verification results crossing from the background task to the screen's thread.
final class ReverifyInbox: @unchecked Sendable {
    // `pending` is only touched while `lock` is held.
    private let lock = NSLock()
    private var pending: [(generation: Int, reports: [ReverifyReport])] = []

    func post(_ generation: Int, _ reports: [ReverifyReport]) {
        lock.lock()
        pending.append((generation, reports))
        lock.unlock()
    }

    func take() -> [(generation: Int, reports: [ReverifyReport])] {
        lock.lock()
        defer { lock.unlock() }
        let taken = pending
        pending = []
        return taken
    }
}
