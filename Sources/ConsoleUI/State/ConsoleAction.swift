import Foundation
import PurchaseStore
import ReceiptCore

/// Everything that happens to the console: keys from the operator, and the answers to the
/// effects it asked for (pages, details, previews, finished changes and re-verifications).
enum ConsoleAction {
    case key(KeyEvent)
    case tick
    case listLoaded(BrowseTable, ListRequest, Result<BrowsePage, ConsoleFailure>)
    case detailLoaded(DetailTarget, DetailModel)
    case countsLoaded(BrowseCounts)
    /// A value was copied or saved (or not): the line saying so.
    case valueCopied(StatusMessage)
    /// The audit chain was verified: nil when intact, else what `audit --verify` would say.
    case auditChecked(String?)
    /// How many rows of each list `filter` matches (dropped when the filter changed meanwhile).
    case matchCountsLoaded(BrowseFilter, [BrowseTable: MatchCount])
    case formOpened(FormState)
    case previewReady(Confirmation)
    /// A form or preview could not be prepared; the message says why.
    case refused(String)
    /// A confirmed change started on the writer's connection.
    case applyStarted(String)
    /// It ended (its outcome follows as changeApplied / changeFailed).
    case applyEnded
    case changeApplied(String)
    case changeFailed(String)
    /// The live view works again after `failure`: its message leaves the status line (the
    /// lists reload, in case something changed while it was away).
    case liveViewRecovered(failure: String)
    case reverifyFinished([ReverifyReport], cancelled: Bool)
    /// The re-verification could not start; nothing was asked.
    case jobFailed(String)
    /// Something changed the database in the background (a cancelled re-verification that
    /// still recorded its answer): reload quietly.
    case backgroundChanged
    /// The refund queue's requests (`all`: answered ones too).
    case refundsLoaded([RefundRequest], all: Bool)
    /// Work at Apple started in the background, reported progress, ended.
    case appleStarted(AppleRequest)
    case appleProgress(String)
    case appleFinished(AppleOutcome)
    /// The team report was read: shown in the pager.
    case reportLoaded(String)
}

/// An error as the console shows it: one line.
struct ConsoleFailure: Error, Equatable {
    let message: String

    init(_ message: String) { self.message = message }

    init(_ error: Error) {
        if let store = error as? StoreError { message = store.reason } else if let receipt = error as? ReceiptError {
            message = receipt.reason
        } else if let failure = error as? ConsoleFailure { message = failure.message } else { message = "\(error)" }
    }
}

/// What the reducer asks the controller to do; the answers come back as actions.
enum ConsoleEffect: Equatable {
    case loadList(BrowseTable, ListRequest)
    case loadDetail(DetailTarget)
    case loadCounts
    /// Verify the audit chain (on open and on refresh).
    case checkAudit
    /// Count the filter's matches in every list.
    case loadMatchCounts(BrowseFilter)
    /// Prepare a form that needs data (the revoke form lists what the customer holds).
    case prepareForm(Command, customer: String?)
    case preview(PendingChange)
    case apply(PendingChange)
    case startReverify(JobState)
    case cancelReverify
    /// Give up waiting for the database on the change being applied (nothing is written).
    case cancelApply
    /// Put `text` on the terminal's clipboard (OSC 52).
    case copyToClipboard(String, label: String)
    /// Write the customer's case file (Markdown and JSON) to new files.
    case exportCase(String)
    /// Write `text` to a new file at `path`.
    case writeFile(path: String, text: String, label: String)
    /// Read the refund requests queue.
    case loadRefunds(all: Bool)
    /// Read the team report (this week and this month) for the pager.
    case loadReport
    /// Open the consumption form of a refund request, filled from the ledger's draft.
    case openConsumption(Int64)
}
