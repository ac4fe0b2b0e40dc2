import Foundation
import PurchaseStore
import ReceiptCore

/// Runs the console: feeds keys to the reducer, carries out the effects it names (keyset page
/// reads, detail lookups, previews and changes through the ledger, re-verification in the
/// background) and draws the state on a `Screen`. Used from one thread (the terminal's loop, a
/// test, the benchmark); only the re-verification runs elsewhere, reporting back through an inbox.
public final class ConsoleController {
    let environment: ConsoleEnvironment
    var state: ConsoleState
    private let inbox = ReverifyInbox()
    private var task: Task<Void, Never>?
    /// Bumped when a job is cancelled, so its late answer is not shown as the current one.
    private var generation = 0
    /// The rows the previewed change decides on, as they were when its preview was built.
    private var pendingGuard: (change: PendingChange, guard: ChangeGuard)?
    /// When the change feed was last asked, and its last failure (said once).
    private var lastChangeCheck: ContinuousClock.Instant?
    private var changeFailure: String?
    /// The change being written on the writer's connection: its outcome arrives here, and
    /// setting `cancelled` makes its wait for the lock give up.
    private let applyInbox = ApplyInbox()
    private var applyCancel: CancelFlag?
    /// Work at Apple in the background (`ConsoleController+Apple`).
    let appleDesk = AppleDesk()

    /// Opens the console at `size`, loading the counts and the first page of customers.
    public init(environment: ConsoleEnvironment, size: ScreenSize) {
        self.environment = environment
        let label = environment.apple?.label ?? environment.appleNote ?? "no Apple service configured"
        state = ConsoleState(header: ConsoleHeader(database: environment.databaseLabel, operatorName: environment.operatorName,
                                                   readOnly: environment.readOnly, appleLabel: label), size: size)
        let configuration = environment.ledger.configuration
        var names = Set(configuration.products.values.map(\.entitlement))
        if let rule = configuration.paidToFree { names.insert(rule.entitlement) }
        state.catalogueEntitlements = names.sorted()
        state.subscriptionProducts = configuration.products.filter { $0.value.type == .autoRenewable }.map(\.key).sorted()
        state.now = environment.clock()
        state.displayZone = environment.timeZone
        state.exportFolder = environment.exportDirectory
        state.bindings = environment.keyBindings
        state.modeBindings = environment.modeBindings
        if let changes = environment.changes {
            // Listen (or take the starting point) before the first read, so no change falls between.
            _ = try? environment.lock.run { _ in try changes.waitForChange(timeout: 0) }  // a failure shows on the first tick
        }
        run(.loadCounts)
        // The audit chain is verified at the first tick, after the first screen is drawn: it
        // reads every entry (tens of thousands in a shop's ledger), which the first screen must
        // not wait for.
        auditCheckDue = true
        if let filter = environment.initialFilter, !filter.isEmpty {
            for effect in ConsoleReducer.applyFilter(&state, filter) { run(effect) }
        } else {
            run(.loadList(.customers, ListRequest(cursor: .first, limit: state.layout.listRows, purpose: .replace(keepKey: nil))))
        }
    }

    deinit {
        task?.cancel()
        appleDesk.task?.cancel()
    }

    /// Whether the audit chain's check at opening is still to run (at the first tick).
    private var auditCheckDue = false

    /// Whether the operator quit.
    public var isFinished: Bool { state.finished }

    /// Whether a re-verification is running (the loop should tick for the spinner).
    public var isBusy: Bool { state.job != nil || state.applying != nil || state.appleJob != nil }

    /// One key, mouse event or resize.
    public func handle(_ key: KeyEvent) { dispatch(.key(key)) }

    /// Types each character of `text` as a key (tests and the benchmark).
    public func type(_ text: String) {
        for character in text { handle(.character(character)) }
    }

    /// Collects finished background work, shows what other operators changed (the live view:
    /// the visible page, the counts and the detail reload, the selection kept) and turns the
    /// spinner; returns whether anything changed.
    @discardableResult
    public func tick() -> Bool {
        var changed = checkForChanges()
        if auditCheckDue {
            auditCheckDue = false
            run(.checkAudit)
            changed = true
        }
        if let (name, outcome, cancelled) = applyInbox.take() {
            changed = true
            applyCancel = nil
            dispatch(.applyEnded)
            finishApply(name, outcome, cancelled: cancelled)
        }
        for (generation, reports) in inbox.take() {
            changed = true
            if generation == self.generation {
                task = nil
                dispatch(.reverifyFinished(reports, cancelled: false))
            } else {
                dispatch(.backgroundChanged)
            }
        }
        if collectApple() { changed = true }
        if state.job != nil || state.applying != nil || state.appleJob != nil {
            dispatch(.tick)
            changed = true
        }
        return changed
    }

    /// Asks the change feed, at most every `changeInterval` seconds, without waiting.
    private func checkForChanges() -> Bool {
        guard let changes = environment.changes else { return false }
        let now = ContinuousClock.now
        if let last = lastChangeCheck, now - last < .milliseconds(Int(environment.changeInterval * 1000)) { return false }
        lastChangeCheck = now
        do {
            let change = try environment.lock.run { _ in try changes.waitForChange(timeout: 0) }
            if let failure = changeFailure {
                changeFailure = nil
                dispatch(.liveViewRecovered(failure: failure))
                return true
            }
            guard change != nil else { return false }
            dispatch(.backgroundChanged)
            return true
        } catch {
            let text = "live view: \(ConsoleFailure(error).message)"
            guard text != changeFailure else { return false }
            changeFailure = text
            dispatch(.changeFailed(text))
            return true
        }
    }

    /// Draws the current state.
    public func render(on screen: Screen) {
        if screen.size != state.size { dispatch(.key(.resize(screen.size))) }
        ConsoleView.draw(state, on: screen)
    }

    /// Whether a background task (possibly cancelled) has not reported yet.
    var hasBackgroundTask: Bool { task != nil || appleDesk.task != nil }

    /// Waits (ticking) until no re-verification runs, at most `timeout` seconds; returns whether
    /// it finished. Blocks the calling thread: call it from a plain thread, never from a task.
    @discardableResult
    public func waitUntilIdle(timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while state.job != nil || task != nil || state.appleJob != nil || appleDesk.task != nil {
            tick()
            if Date() > deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Stops background work (on quit).
    public func shutdown() {
        task?.cancel()
        task = nil
        appleDesk.task?.cancel()
        appleDesk.task = nil
    }

    func dispatch(_ action: ConsoleAction) {
        state.now = environment.clock()
        let effects = ConsoleReducer.reduce(&state, action)
        for effect in effects { run(effect) }
    }

    private func run(_ effect: ConsoleEffect) {
        if runApple(effect) { return }
        let ledgerLock = environment.lock
        let now = state.now
        switch effect {
        case .loadList(let table, let request):
            let filter = state.filter
            let sort = state.sorts[table]
            let result: Result<BrowsePage, ConsoleFailure>
            do {
                result = .success(try ledgerLock.run { try Browser($0.database).page(table, filter: filter, cursor: request.cursor, limit: request.limit,
                                                                                    sort: sort) })
            } catch {
                result = .failure(ConsoleFailure(error))
            }
            dispatch(.listLoaded(table, request, result))
        case .loadDetail(let target):
            dispatch(.detailLoaded(target, ledgerLock.run { DetailLoader.load(target, ledger: $0, now: now) }))
        case .copyToClipboard(let text, let label):
            dispatch(.valueCopied(ValueOutput.copy(text, label: label, clipboard: environment.clipboard)))
        case .exportCase(let customer):
            let operatorName = environment.operatorName
            guard let folder = environment.exportDirectory else {
                return dispatch(.valueCopied(StatusMessage(text: "export: this console writes no files (no folder given)", kind: .error)))
            }
            if let problem = ExportFolder.prepare(folder) {
                return dispatch(.valueCopied(StatusMessage(text: "export refused: \(problem)", kind: .error)))
            }
            do {
                let file = try ledgerLock.run { try CaseFile(customer, ledger: $0, generatedBy: operatorName, now: now) }
                let stem = (folder as NSString).appendingPathComponent(file.fileStem)
                let markdown = ValueOutput.write(file.markdown, to: stem + ".md", label: "case file")
                guard markdown.kind == .success else { return dispatch(.valueCopied(markdown)) }
                let json = ValueOutput.write(file.json.serialized() + "\n", to: stem + ".json", label: "case file")
                guard json.kind == .success else { return dispatch(.valueCopied(json)) }
                dispatch(.valueCopied(StatusMessage(text: "case file of \(customer): \(file.fileStem).md and .json in \(folder)", kind: .success)))
            } catch {
                dispatch(.valueCopied(StatusMessage(text: "export refused: \(ConsoleFailure(error).message)", kind: .error)))
            }
        case .writeFile(let path, let text, let label):
            guard let folder = environment.exportDirectory else {
                return dispatch(.valueCopied(StatusMessage(text: "not saved: this console writes no files (no folder given)", kind: .error)))
            }
            let full = path.hasPrefix("/") || path.hasPrefix("~") ? path : (folder as NSString).appendingPathComponent(path)
            if full.hasPrefix(folder + "/"), let problem = ExportFolder.prepare(folder) {
                return dispatch(.valueCopied(StatusMessage(text: "not saved: \(problem)", kind: .error)))
            }
            dispatch(.valueCopied(ValueOutput.write(text, to: full, label: label)))
        case .checkAudit:
            do {
                let verification = try ledgerLock.run { try AuditLog.verify($0.database) }
                dispatch(.auditChecked(verification.problem))
            } catch {
                dispatch(.auditChecked("it could not be read (\(ConsoleFailure(error).message))"))
            }
        case .loadMatchCounts(let filter):
            var counts: [BrowseTable: MatchCount] = [:]
            for table in BrowseTable.allCases {
                if let count = try? ledgerLock.run({ try Browser($0.database).matchCount(table, filter: filter) }) { counts[table] = count }
            }
            dispatch(.matchCountsLoaded(filter, counts))
        case .loadCounts:
            if let counts = try? ledgerLock.run({ try Browser($0.database).counts() }) {  // stale counts are harmless; the next reload retries
                dispatch(.countsLoaded(counts))
            }
        case .prepareForm(let command, let customer):
            guard !environment.readOnly, command == .revoke, let customer else { return dispatch(.refused("read-only: nothing changes here")) }
            do {
                let summary = try ledgerLock.run { try $0.customerSummary(customer) }
                if let form = FormLogic.revokeForm(customer: customer, entitlements: summary.entitlements, grants: summary.grants) {
                    dispatch(.formOpened(form))
                } else {
                    dispatch(.refused("\(customer) holds no entitlement and no open grant: nothing to revoke"))
                }
            } catch {
                dispatch(.refused(ConsoleFailure(error).message))
            }
        case .preview(let change):
            guard !environment.readOnly else { return dispatch(.refused("read-only: \(change.name) is not available; nothing changed")) }
            do {
                let operatorName = environment.operatorName
                let appleLabel = state.header.appleLabel
                // What the operator decides on is read first: anything changed after it refuses the change.
                let (confirmation, watched) = try ledgerLock.run { ledger in
                    let watched = try ChangeGuard.snapshot(change, database: ledger.database)
                    return (try ChangePreview.confirmation(change, ledger: ledger, operatorName: operatorName, now: now, appleLabel: appleLabel), watched)
                }
                pendingGuard = (confirmation.change, watched)
                dispatch(.previewReady(confirmation))
            } catch {
                dispatch(.refused("\(change.name) refused: \(ConsoleFailure(error).message)"))
            }
        case .apply(let change):
            guard !environment.readOnly else { return dispatch(.changeFailed("read-only: \(change.name) is not available; nothing changed")) }
            let watched = pendingGuard.flatMap { $0.change == change ? $0.guard : nil } ?? .none
            pendingGuard = nil
            if let writer = environment.writer {
                guard state.applying == nil else {
                    return dispatch(.changeFailed("\(change.name) refused: another change is still being written; nothing changed"))
                }
                return applyInBackground(change, watched: watched, writer: writer)
            }
            let operatorName = environment.operatorName
            finishApply(change.name, Result {
                try ledgerLock.run { ledger in
                    try watched.perform(ledger.database) { try ChangeRunner.apply(change, ledger: ledger, operatorName: operatorName) }
                }
            }, cancelled: false)
        case .startReverify(let job):
            startReverify(job)
        case .cancelApply:
            applyCancel?.set()
        case .cancelReverify:
            task?.cancel()
            task = nil
            generation += 1
            if state.job != nil { dispatch(.reverifyFinished([], cancelled: true)) }
        case .loadRefunds, .openConsumption:
            break  // runApple ran it
        case .loadReport:
            do {
                let reports = try ledgerLock.run { ledger in try TeamReport.Period.allCases.map { try ledger.teamReport($0, now: now) } }
                dispatch(.valueCopied(StatusMessage(text: "team report read", kind: .info)))
                dispatch(.reportLoaded(reports.map { $0.lines.joined(separator: "\n") }.joined(separator: "\n\n")))
            } catch {
                dispatch(.valueCopied(StatusMessage(text: "team report: \(ConsoleFailure(error).message)", kind: .error)))
            }
        }
    }

    /// Writes a confirmed change through the writer's connection on a thread of its own; the
    /// outcome comes back through `applyInbox` at a tick.
    private func applyInBackground(_ change: PendingChange, watched: ChangeGuard, writer: PurchaseLedger) {
        let flag = CancelFlag()
        applyCancel = flag
        (writer.database as? SQLiteDatabase)?.isCancelled = { flag.isSet }
        dispatch(.applyStarted(change.name))
        let job = WriterJob(writer: writer, change: change, watched: watched, operatorName: environment.operatorName)
        let inbox = applyInbox
        Thread.detachNewThread {
            let outcome = Result { try job.run() }
            inbox.post((change.name, outcome, flag.isSet))
        }
    }

    /// Says how a change ended; a failed one reloads what is shown (someone else may have changed it).
    private func finishApply(_ name: String, _ outcome: Result<String, Error>, cancelled: Bool) {
        switch outcome {
        case .success(let text):
            dispatch(.changeApplied(text))
        case .failure(let error):
            if cancelled, let store = error as? StoreError, store.code == .busy {
                dispatch(.changeFailed("\(name): gave up waiting for another operator's change to finish; nothing changed"))
            } else {
                let reason = ConsoleFailure(error).message
                dispatch(.changeFailed("\(name) refused: \(reason)" + (reason.contains("nothing was done") ? "" : "; nothing changed")))
            }
            dispatch(.backgroundChanged)
        }
    }

    private func startReverify(_ job: JobState) {
        guard !environment.readOnly else { return dispatch(.jobFailed("read-only: re-verifying records Apple's answer, so it is not available")) }
        guard let apple = environment.apple else {
            return dispatch(.jobFailed("re-verify: no Apple service is configured (config appStore); nothing was asked"))
        }
        let reverifier = Reverifier(lock: environment.lock, service: apple, operatorName: environment.operatorName)
        let inbox = self.inbox
        let generation = self.generation
        let ids = job.receiptIds
        let serial = job.serial
        task = Task.detached {
            let reports = ids.count == 1 ? [await reverifier.reverify(ids[0])] : await reverifier.reverify(ids, concurrency: serial ? 1 : 4)
            inbox.post(generation, reports)
        }
    }
}
