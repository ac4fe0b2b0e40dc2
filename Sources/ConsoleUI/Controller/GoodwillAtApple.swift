import Foundation
import PurchaseStore
import ReceiptCore

/// Goodwill at Apple for many from the console (B, "extend at Apple"): the preview is the
/// ledger's `planRenewalExtensionBatch` (who gets what, who is skipped and why, asking Apple
/// nothing), and y runs `extendBatch` on the Apple job's task, off the screen's thread; the
/// report (extended to DATE, refused by Apple with its error, skipped because) opens in the pager.
enum GoodwillAtApple {
    /// The most subscription lines the preview lists; the report lists them all.
    static let previewLines = 12

    static func prepare(_ request: AppleRequest, ledger: PurchaseLedger, now: Date) throws -> (Confirmation, ApplePlan) {
        guard case .extendBatch(let query, let tagged, let days, let code, let reason) = request else {
            throw ConsoleFailure("\(request.name): not a goodwill at Apple; nothing was asked")
        }
        let customers = tagged.isEmpty ? try GrantBatch.customers(matching: try BrowseFilter(parsing: query), in: ledger.database) : tagged
        let batch = try ledger.planRenewalExtensionBatch(customers: customers, days: days, reasonCodeNumber: code, reason: reason)
        let source = tagged.isEmpty ? "found by \(query)" : "tagged"
        var lines: [StyledLine] = [
            [Span("Extend at Apple by \(Plural.of(days, "day")): \(batch.toExtend) of \(Plural.of(batch.subscriptionCount, "subscription")) of the \(Plural.of(batch.customerCount, "customer")) \(source)", .bold)],
            [Span("  Apple's reason code \(code): \(batch.reasonCodeWords) · \(batch.batchId)", .muted)],
        ]
        for line in batch.lines.prefix(previewLines) { lines.append(styled(line)) }
        if batch.lines.count > previewLines {
            lines.append([Span("  … \(batch.lines.count - previewLines) more (the report after y lists them all)", .muted)])
        }
        lines += ApplePreview.tail(reason, writes: "asks Apple for each to extend (once per subscription for this goodwill, a second run asks nothing), reads each back; audit entries \"apple-extend\" and one \"apple-extend-batch\". Apple emails each customer; an extension cannot be undone")
        return (Confirmation(change: .apple(request), title: "Goodwill at Apple: preview", lines: lines), .batch(batch))
    }

    /// Runs the goodwill as previewed (or planned again when no preview is at hand).
    static func run(_ job: AppleJob) async throws -> AppleOutcome {
        guard case .extendBatch(let query, let tagged, let days, let code, let reason) = job.request else {
            throw ConsoleFailure("\(job.request.name): not a goodwill at Apple; nothing was asked")
        }
        let preview: RenewalExtensionBatch
        if case .batch(let planned) = job.plan {
            preview = planned
        } else {
            preview = try job.actions.ledger.run { ledger in
                let customers = tagged.isEmpty ? try GrantBatch.customers(matching: try BrowseFilter(parsing: query), in: ledger.database) : tagged
                return try ledger.planRenewalExtensionBatch(customers: customers, days: days, reasonCodeNumber: code, reason: reason)
            }
        }
        let done = try await job.actions.extendBatch(preview, operatorName: job.operatorName)
        let failed = done.refusedOrFailed
        let skipped = done.count { if case .skipped = $0 { return true } else { return false } }
        var text = "\(done.batchId): extended \(done.extendedNow) of \(Plural.of(done.subscriptionCount, "subscription")) at Apple"
        if failed > 0 { text += "; \(failed) refused or unanswered" }
        if skipped > 0 { text += "; \(skipped) skipped" }
        let pager = PagerState(title: "Goodwill at Apple \(done.batchId): report", text: report(done).joined(separator: "\n"))
        return AppleOutcome(request: job.request, message: StatusMessage(text: text + " (the report is in the pager)", kind: failed > 0 ? .error : .success),
                            pager: pager, changed: true)
    }

    /// One subscription (or customer without one) of the preview.
    static func styled(_ line: RenewalExtensionBatch.Line) -> StyledLine {
        let what = [Span(line.customerId), Span(line.originalTransactionId.map { "  \(line.productId ?? $0)" } ?? "", .muted)]
        switch line.outcome {
        case .willExtend(let expires, let retry):
            let end = expires.map { $0.addingTimeInterval(Double(line.days) * 86_400) }
            return [Span("  + ", CellStyle(.ok))] + what
                + [Span("  expires \(expires.map(ConsoleFormat.date) ?? "?") → about \(end.map(ConsoleFormat.date) ?? "?")" + (retry ? " (retries the unanswered request)" : ""))]
        case .alreadyExtended(let to, let by, _):
            return [Span("  = ", .muted)] + what + [Span("  already extended by this goodwill to \(to.map(ConsoleFormat.date) ?? "?") (\(by)): nothing asked", .muted)]
        case .refused(let why):
            return [Span("  ✗ ", CellStyle(.danger))] + what + [Span("  refused by Apple: \(why)", CellStyle(.danger))]
        case .skipped(let why):
            return [Span("  - ", CellStyle(.warning))] + what + [Span("  skipped: \(why)", .muted)]
        case .extended(let to):
            return [Span("  + ", CellStyle(.ok))] + what + [Span("  extended to \(to.map(ConsoleFormat.dateTime) ?? "?")")]
        case .failed(let why):
            return [Span("  ! ", CellStyle(.warning))] + what + [Span("  \(why)", CellStyle(.warning))]
        }
    }

    /// The report after Apple was asked, one subscription a line: what each came to.
    static func report(_ batch: RenewalExtensionBatch) -> [String] {
        var lines = ["\(batch.batchId): extended \(batch.extendedNow) of \(Plural.of(batch.subscriptionCount, "subscription")) of \(Plural.of(batch.customerCount, "customer")) at Apple by \(Plural.of(batch.days, "day"))",
                     "Apple's reason code: \(batch.reasonCodeWords); reason: \(batch.reason)", ""]
        for line in batch.lines {
            let who = line.customerId + (line.originalTransactionId.map { "  \($0) (\(line.productId ?? "?"))" } ?? "")
            switch line.outcome {
            case .extended(let to): lines.append("+ \(who)  extended by \(Plural.of(line.days, "day")) to \(to.map(ConsoleFormat.dateTime) ?? "?")")
            case .alreadyExtended(let to, let by, let at):
                lines.append("= \(who)  already extended by this goodwill to \(to.map(ConsoleFormat.date) ?? "?") (\(by), \(at.map(ConsoleFormat.date) ?? "?")): nothing asked")
            case .refused(let why): lines.append("✗ \(who)  refused by Apple: \(why)")
            case .skipped(let why): lines.append("- \(who)  skipped: \(why)")
            case .failed(let why): lines.append("! \(who)  \(why)")
            case .willExtend: lines.append("? \(who)  not asked")
            }
            if let note = line.note { lines.append("    \(note)") }
        }
        return lines
    }
}
