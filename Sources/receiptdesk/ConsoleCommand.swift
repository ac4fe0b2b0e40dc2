import ConsoleCurses
import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk console [--db PATH|URL] [--config FILE] [--operator NAME] [--read-only] [--search TEXT]`: the
/// terminal console over the purchase database (what `receiptdesk` opens on a terminal), a
/// SQLite file or a PostgreSQL database (`postgres://…`). Apple is whatever the config names
/// (the built-in simulator in the demo). With `--read-only` the database is opened read-only
/// and no changing action is offered. The view is live: what other operators change shows
/// within about a second (PostgreSQL LISTEN/NOTIFY; on SQLite the audit head is polled).
/// `--search TEXT` opens at a search (the `/` grammar); the config's `console.keys` remaps keys.
enum ConsoleCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let readOnly = args.flag("--read-only")
        // `--search TEXT` opens at that search, as if typed after `/` (checked before the terminal is taken).
        let search = try args.value("--search")
        let initialFilter: BrowseFilter?
        do {
            initialFilter = try search.map { try BrowseFilter(parsing: $0) }
        } catch {
            throw CommandFailure.usage("--search: " + ((error as? StoreError)?.reason ?? "\(error)"))
        }
        _ = try args.finish(maxPositionals: 0)
        // The config's keys are checked before the terminal is: a wrong one is named from a script too.
        do {
            try ConsoleEnvironment.checkKeys(options.configuration.console.keys)
        } catch let failure as KeyMapError {
            throw CommandFailure.usage(failure.description)
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw CommandFailure.usage("the console needs a terminal; in scripts use the subcommands (receiptdesk help)")
        }
        let ledger = try readOnly ? options.openLedgerForReading() : options.openLedger()
        var apple: AppleService?
        var appleNote: String?
        var connection: AppleConnection?
        do {
            connection = try AppleConnection.open(options.configuration, baseTrust: options.trust, simulatorLoadsInBackground: true)
            apple = connection?.service
        } catch {
            appleNote = "Apple unavailable: \(CommandFailure.from(error).message)"
        }
        defer { connection?.close() }
        let label = PostgresDatabase.isURL(options.databasePath) ? ledger.database.location : (options.databasePath as NSString).lastPathComponent
        var environment = ConsoleEnvironment(ledger: ledger, apple: apple, appleNote: appleNote, operatorName: options.operatorName,
                                             readOnly: readOnly, databaseLabel: label, changes: ChangeFeeds.make(for: ledger.database))
        // Changes are written on a connection of their own, off the screen's thread.
        if !readOnly { environment.writer = try options.openLedger() }
        environment.clipboard = { TerminalSession.copyToClipboard($0) }
        // Case files and saved values: the config's folder, else the XDG download folder; never the current directory.
        environment.exportDirectory = ExportFolder.resolve(configured: options.configuration.console.exportFolder,
                                                           environment: ProcessInfo.processInfo.environment, home: nil)?.path
        do {
            try environment.remapKeys(options.configuration.console.keys)
        } catch let failure as KeyMapError {
            throw CommandFailure.usage(failure.description)
        }
        environment.initialFilter = initialFilter
        environment.timeZone = DisplayZone.operatorZone(configured: options.configuration.displayTimeZone,
                                                        environment: ProcessInfo.processInfo.environment)
        do {
            // The simulator's records (tens of megabytes in a large demo) load once the first
            // screen is up, so that the load does not take a core from it.
            try TerminalConsole.run(afterFirstFrame: { connection?.startDeferredLoad() }) { size in
                ConsoleController(environment: environment, size: size)
            }
        } catch let failure as TerminalSession.Failure {
            throw CommandFailure.usage(failure.description)
        }
        return .ok
    }
}
