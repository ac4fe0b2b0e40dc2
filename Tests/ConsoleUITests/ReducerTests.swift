import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// The reducer and the binding table on their own: keys in, state and effects out, no database.
@Suite("Reducer, bindings and forms")
struct ReducerTests {
    static let header = ConsoleHeader(database: "purchases.sqlite", operatorName: "mei", readOnly: false, appleLabel: "Apple")

    func state(readOnly: Bool = false, rows: Int = 0, moreAfter: Bool = false) -> ConsoleState {
        var header = Self.header
        header.readOnly = readOnly
        var state = ConsoleState(header: header, size: ScreenSize(rows: 24, columns: 80))
        state.now = RFC3339.parse("2025-06-01T12:00:00Z") ?? Date()
        var list = ListState()
        list.loaded = true
        list.rows = (0..<rows).map { .customer(.integer(Int64($0 + 1)), Self.customer("c\($0 + 1)")) }
        list.moreAfter = moreAfter
        state.lists[.customers] = list
        return state
    }

    static func customer(_ id: String) -> CustomerListRow {
        CustomerListRow(customerId: id, isTester: false, transactionCount: 1, transactionCountCapped: false, activeEntitlements: [],
                        environments: ["Production"], environmentMismatch: false, openConflicts: 0)
    }

    @Test func movingPastTheWindowAsksForTheNextRowByKey() {
        var s = state(rows: 3, moreAfter: true)
        s.lists[.customers]?.selected = 2
        let effects = ConsoleReducer.reduce(&s, .key(.character("j")))
        #expect(effects == [.loadList(.customers, ListRequest(cursor: .after(3), limit: 1, purpose: .step(forward: true)))])
        var quiet = state(rows: 3, moreAfter: false)
        quiet.lists[.customers]?.selected = 2
        #expect(ConsoleReducer.reduce(&quiet, .key(.down)).isEmpty, "nothing more: nothing asked")
    }

    @Test func movingInsideTheWindowLoadsTheDetailOfTheNewRow() {
        var s = state(rows: 3)
        #expect(ConsoleReducer.reduce(&s, .key(.down)) == [.loadDetail(.customer("c2"))])
        #expect(s.list.selected == 1)
    }

    @Test func pagesAndEndsAreKeysetRequests() {
        var s = state(rows: 3, moreAfter: true)
        let rows = s.layout.listRows
        #expect(ConsoleReducer.reduce(&s, .key(.pageDown)) == [.loadList(.customers, ListRequest(cursor: .after(3), limit: rows, purpose: .page(forward: true)))])
        #expect(ConsoleReducer.reduce(&s, .key(.end)) == [.loadList(.customers, ListRequest(cursor: .last, limit: rows, purpose: .replace(keepKey: nil)))])
        #expect(ConsoleReducer.reduce(&s, .key(.home)) == [.loadList(.customers, ListRequest(cursor: .first, limit: rows, purpose: .replace(keepKey: nil)))])
    }

    @Test func aStepPageIsMergedIntoAWindowThatNeverGrows() {
        var list = ListState()
        let rows = (1...5).map { BrowseRow.customer(.integer(Int64($0)), Self.customer("c\($0)")) }
        list.apply(BrowsePage(rows: Array(rows.prefix(3)), isFull: true), for: ListRequest(cursor: .first, limit: 3, purpose: .replace(keepKey: nil)), capacity: 3)
        list.selected = 2
        list.apply(BrowsePage(rows: [rows[3]], isFull: true), for: ListRequest(cursor: .after(3), limit: 1, purpose: .step(forward: true)), capacity: 3)
        #expect(list.rows.map(\.key) == [2, 3, 4])
        #expect(list.selected == 2 && list.moreBefore && list.moreAfter)
        // The same row again (the wheel sends several) is not added twice.
        list.apply(BrowsePage(rows: [rows[3]], isFull: true), for: ListRequest(cursor: .after(3), limit: 1, purpose: .step(forward: true)), capacity: 3)
        #expect(list.rows.map(\.key) == [2, 3, 4])
        list.apply(BrowsePage(rows: [rows[4]], isFull: false), for: ListRequest(cursor: .after(4), limit: 3, purpose: .page(forward: true)), capacity: 3)
        #expect(list.rows.map(\.key) == [3, 4, 5])
        #expect(list.selected == 2 && !list.moreAfter)
        list.apply(BrowsePage(rows: Array(rows.prefix(2)), isFull: false), for: ListRequest(cursor: .before(3), limit: 3, purpose: .page(forward: false)), capacity: 3)
        #expect(list.rows.map(\.key) == [1, 2, 3])
        #expect(!list.moreBefore)
    }

    @Test func readOnlyRefusesEveryChangingActionOutLoud() {
        for key in ["g", "x", "R", "i", "r"] {
            var s = state(readOnly: true, rows: 2)
            #expect(ConsoleReducer.reduce(&s, .key(.character(Character(key)))).isEmpty, "\(key) asked for something")
            #expect(s.message?.kind == .error && s.message?.text.hasPrefix("read-only") == true, "\(key): \(s.message?.text ?? "")")
            if case .browse = s.mode {} else { Issue.record("\(key) opened a form in read-only mode") }
        }
        var s = state(readOnly: true, rows: 2)
        _ = ConsoleReducer.reduce(&s, .key(.character(":")))
        for character in "grant" { _ = ConsoleReducer.reduce(&s, .key(.character(character))) }
        #expect(ConsoleReducer.reduce(&s, .key(.enter)).isEmpty)
        #expect(s.message?.text.hasPrefix("read-only") == true)
    }

    @Test func helpAndHintsComeFromTheBindingTableAndHideChangesWhenReadOnly() {
        let changing = Set(Command.allCases.filter(\.changesData).map(\.rawValue))
        let readOnlyHelp = KeyBindings.helpRows(readOnly: true).map(\.name)
        #expect(changing.isDisjoint(with: readOnlyHelp))
        #expect(changing.isSubset(of: KeyBindings.helpRows(readOnly: false).map(\.name)))
        let words = KeyBindings.hints(scopes: [.list, .conflicts, .global], readOnly: true).map(\.word)
        #expect(!words.contains("grant") && !words.contains("re-verify") && !words.contains("owner"))
        #expect(KeyBindings.hints(scopes: [.list, .conflicts, .global], readOnly: false).map(\.word).contains("owner"))
        // Every command has a name the command line accepts, and every binding's command is documented.
        for command in Command.allCases { #expect(!command.summary.isEmpty && Command(rawValue: command.rawValue) == command) }
    }

    @Test func quitAsksWhileAnActionRuns() {
        var s = state(rows: 1)
        s.job = JobState(receiptIds: [1], label: "receipt #1", startedTick: 0)
        _ = ConsoleReducer.reduce(&s, .key(.character("q")))
        guard case .quitConfirm = s.mode else { Issue.record("q did not ask"); return }
        #expect(!s.finished)
        #expect(ConsoleReducer.reduce(&s, .key(.character("y"))) == [.cancelReverify])
        #expect(s.finished)
        var idle = state(rows: 1)
        _ = ConsoleReducer.reduce(&idle, .key(.character("q")))
        #expect(idle.finished)
    }

    @Test func escapeCancelsTheRunningReverification() {
        var s = state(rows: 1)
        s.job = JobState(receiptIds: [1], label: "receipt #1", startedTick: 0)
        #expect(ConsoleReducer.reduce(&s, .key(.escape)) == [.cancelReverify])
        _ = ConsoleReducer.reduce(&s, .reverifyFinished([], cancelled: true))
        #expect(s.job == nil && s.message?.text.contains("cancelled") == true)
    }

    @Test func changingActionsWaitForTheRunningReverification() {
        var s = state(rows: 1)
        s.job = JobState(receiptIds: [1], label: "receipt #1", startedTick: 0)
        #expect(ConsoleReducer.reduce(&s, .key(.character("g"))).isEmpty)
        #expect(s.message?.text.contains("Esc to cancel") == true)
    }

    @Test func aGrantNeedsAReasonAndAValidEnd() throws {
        let now = RFC3339.parse("2025-06-01T12:00:00Z") ?? Date()
        var form = FormState(kind: .grant(customer: "alice"), fields: [
            FormField(label: "Entitlement", kind: .choice(["pro"], 0), hint: ""),
            FormField(label: "Until", kind: .text(TextField("P30D")), hint: ""),
            FormField(label: "Reason", kind: .text(TextField("  ")), hint: ""),
        ])
        guard case .failure(let failure) = FormLogic.submit(form, now: now) else { Issue.record("a blank reason was accepted"); return }
        #expect(failure.message.contains("reason is required"))
        form.fields[2].kind = .text(TextField("goodwill"))
        #expect(try FormLogic.submit(form, now: now).get() == .grant(customer: "alice", entitlement: "pro", end: .duration(ISODuration(days: 30)), reason: "goodwill"))
        #expect(try FormLogic.parseEnd("", now: now).get() == .forever)
        #expect(try FormLogic.parseEnd("2026-01-01", now: now).get() == .date(RFC3339.parse("2026-01-01T00:00:00Z") ?? now))
        #expect((try? FormLogic.parseEnd("2020-01-01", now: now).get()) == nil, "a past date is refused")
        #expect((try? FormLogic.parseEnd("soon", now: now).get()) == nil)
    }

    @Test func filterAndCommandLineReportMistakes() {
        var s = state(rows: 1)
        _ = ConsoleReducer.reduce(&s, .key(.character("/")))
        for character in "env:moon" { _ = ConsoleReducer.reduce(&s, .key(.character(character))) }
        #expect(ConsoleReducer.reduce(&s, .key(.enter)).isEmpty)
        #expect(s.message?.text.contains("env:moon is not one of") == true)
        guard case .filter = s.mode else { Issue.record("a bad filter closed the prompt"); return }
        _ = ConsoleReducer.reduce(&s, .key(.escape))
        _ = ConsoleReducer.reduce(&s, .key(.character(":")))
        for character in "grnt" { _ = ConsoleReducer.reduce(&s, .key(.character(character))) }
        _ = ConsoleReducer.reduce(&s, .key(.enter))
        #expect(s.message?.text.contains("unknown command 'grnt'") == true)
        #expect(s.message?.text.contains("grant") == true)
    }

    @Test func filterTextParses() throws {
        let filter = try BrowseFilter(parsing: "1000000359369424 customer:\"王 小明\" env:sandbox status:conflict verdict:invalid urn:x")
        #expect(filter.terms == ["1000000359369424", "urn:x"])
        #expect(filter.fields == [BrowseFilter.FieldMatch(field: .customer, value: "王 小明")])
        #expect(filter.environment == "Sandbox" && filter.status == "conflict" && filter.verdict == "invalid")
        #expect(try BrowseFilter(parsing: filter.text) == filter)
        #expect(throws: StoreError.self) { try BrowseFilter(parsing: "verdict:maybe") }
        #expect(throws: StoreError.self) { try BrowseFilter(parsing: "\"open") }
    }

    @Test func textFieldsEdit() {
        var field = TextField("abc")
        _ = field.edit(.left)
        _ = field.edit(.character("王"))
        #expect(field.text == "ab王c" && field.cursor == 3)
        _ = field.edit(.backspace)
        _ = field.edit(.home)
        _ = field.edit(.delete)
        #expect(field.text == "bc")
        _ = field.edit(.control("u"))
        #expect(field.text.isEmpty)
    }
}
