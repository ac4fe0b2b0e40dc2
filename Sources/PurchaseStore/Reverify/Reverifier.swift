import Foundation
import AppStoreAPI
import ReceiptCore

/// Progress of a batch, for a progress bar.
public struct ReverifyProgress: Sendable {
    public let done: Int
    public let total: Int
    public let inFlight: Int
    public let window: Int
}

/// Re-verifies stored artefacts with Apple: asks (verifyReceipt or the Server API), records every
/// attempt, applies what Apple knows and shows where the local decode and Apple's answer differ.
/// Batches keep at most `concurrency` requests in flight, narrow the window when Apple answers 429,
/// and can be cancelled: what finished is applied, and a re-run applies nothing twice.
public struct Reverifier: Sendable {
    let lock: LedgerLock
    let service: AppleService
    let operatorName: String

    public init(lock: LedgerLock, service: AppleService, operatorName: String) {
        self.lock = lock
        self.service = service
        self.operatorName = operatorName
    }

    /// Re-verifies one stored artefact.
    public func reverify(_ receiptId: Int64) async -> ReverifyReport {
        let question: AppleQuestion
        do {
            question = try lock.run { try AppleQuestion.load(receiptId, ledger: $0, service: service) }
        } catch {
            return ReverifyReport(receiptId: receiptId, customerId: nil, outcome: .failed, summary: "\(error)", appleEnvironment: nil,
                                  comparison: nil, changes: [], attempts: [], isTemporary: false)
        }
        switch question.kind {
        case .none(let why):
            return report(question, .skipped, "skipped: \(why)", nil, nil, [], temporary: false)
        case .verifyReceipt(let data):
            guard let client = service.verifyReceipt else { return report(question, .skipped, "skipped: no verifyReceipt client", nil, nil, [], temporary: false) }
            do {
                let outcome = try await client.verify(receiptData: data)
                let response = outcome.response
                let raw = Self.rawAnswer(response.body)
                guard outcome.isValid else {
                    let summary = "Apple: status \(outcome.status): \(outcome.meaning)"
                    let refusal = !outcome.isTemporaryFailure && VerdictContradiction.refusalStatuses.contains(outcome.status)
                    if refusal, let line = VerdictContradiction.whenAppleRefuses(question, answer: "Apple says status \(outcome.status) (\(outcome.meaning))") {
                        return record(question, .contradicted, line, outcome.environment, nil, outcome.attempts, temporary: false,
                                      appleVerdict: "invalid", contradiction: line, rawAnswer: raw)
                    }
                    return record(question, outcome.isTemporaryFailure ? .failed : .rejected, summary, outcome.environment, nil,
                                  outcome.attempts, temporary: outcome.isTemporaryFailure, appleVerdict: refusal ? "invalid" : nil, rawAnswer: raw)
                }
                var purchases = response.latestReceiptInfo
                let seen = Set(purchases.compactMap(\.transactionId))
                purchases += response.inApp.filter { !seen.contains($0.transactionId ?? "") }
                var summary = "Apple: status 0 (valid) from \(outcome.environment.rawValue.lowercased())"
                if let disagreement = outcome.environmentDisagreement { summary += "; \(disagreement)" }
                if let line = VerdictContradiction.whenAppleVouches(question, answer: "Apple says valid (status 0, \(outcome.environment.rawValue.lowercased()))") {
                    return record(question, .contradicted, line, outcome.environment, nil, outcome.attempts, temporary: false,
                                  appleVerdict: "valid", contradiction: line, rawAnswer: raw)
                }
                return record(question, .verified, summary, outcome.environment, purchases, outcome.attempts, temporary: false,
                              appleVerdict: "valid", rawAnswer: raw)
            } catch let error as AppStoreError {
                return record(question, .failed, "Apple gave no answer: \(error.reason)", nil, nil, error.attempts,
                              temporary: Self.isTemporary(error))
            } catch {
                return report(question, .failed, "\(error)", nil, nil, [], temporary: error is CancellationError)
            }
        case .history(let id, let environment):
            guard let client = service.serverAPI else { return report(question, .skipped, "skipped: no Server API client", nil, nil, [], temporary: false) }
            do {
                let list = try await client.transactionHistory(id, environment: environment)
                var summary = "Apple: \(Plural.of(list.transactions.count, "transaction")) in the history of \(id) (\(list.environment.rawValue.lowercased()), \(Plural.of(list.pages, "page")))"
                if !list.rejected.isEmpty { summary += "; \(Plural.of(list.rejected.count, "signed transaction")) did not verify and \(list.rejected.count == 1 ? "was" : "were") ignored" }
                if !list.transactions.isEmpty,
                   let line = VerdictContradiction.whenAppleVouches(question, answer: "Apple knows \(id) (\(Plural.of(list.transactions.count, "signed transaction")) in its history)") {
                    return record(question, .contradicted, line, list.environment, nil, list.attempts, temporary: false,
                                  appleVerdict: "valid", contradiction: line)
                }
                return record(question, .verified, summary, list.environment, list.transactions.map(\.transaction.purchase),
                              list.attempts, temporary: false, appleVerdict: list.transactions.isEmpty ? nil : "valid")
            } catch let error as AppStoreError {
                let unknown = error.apiError?.rawValue == 4040010
                if unknown, let line = VerdictContradiction.whenAppleRefuses(question, answer: "Apple does not know transaction \(id) in either environment") {
                    return record(question, .contradicted, line, nil, nil, error.attempts, temporary: false,
                                  appleVerdict: "invalid", contradiction: line)
                }
                return record(question, unknown ? .rejected : .failed,
                              unknown ? "Apple does not know transaction \(id) in either environment" : "Apple gave no answer: \(error.reason)",
                              nil, nil, error.attempts, temporary: Self.isTemporary(error), appleVerdict: unknown ? "invalid" : nil)
            } catch {
                return report(question, .failed, "\(error)", nil, nil, [], temporary: error is CancellationError)
            }
        }
    }

    /// Re-verifies many, at most `concurrency` at once (narrowed while Apple rate-limits).
    public func reverify(_ receiptIds: [Int64], concurrency: Int,
                         onProgress: @escaping @Sendable (ReverifyProgress, ReverifyReport) -> Void = { _, _ in }) async -> [ReverifyReport] {
        let limit = max(1, min(concurrency, 64))
        var window = limit
        var reports: [ReverifyReport] = []
        var next = 0
        var inFlight = 0
        var calmStreak = 0
        await withTaskGroup(of: ReverifyReport.self) { group in
            func launch() {
                while inFlight < window, next < receiptIds.count, !Task.isCancelled {
                    let id = receiptIds[next]
                    next += 1
                    inFlight += 1
                    group.addTask { await self.reverify(id) }
                }
            }
            launch()
            while let report = await group.next() {
                inFlight -= 1
                reports.append(report)
                if report.wasRateLimited {
                    window = max(1, window / 2)
                    calmStreak = 0
                } else if window < limit {
                    calmStreak += 1
                    if calmStreak >= 10 { window += 1; calmStreak = 0 }
                }
                onProgress(ReverifyProgress(done: reports.count, total: receiptIds.count, inFlight: inFlight, window: window), report)
                launch()
            }
        }
        return reports
    }

    private static func isTemporary(_ error: AppStoreError) -> Bool {
        [.timeout, .connectionLost, .connectionRefused, .transport, .httpStatus, .rateLimited].contains(error.code)
            || (error.apiError?.isRetryable ?? false)
    }

    private func report(_ q: AppleQuestion, _ outcome: ReverifyReport.Outcome, _ summary: String, _ environment: Environment?,
                        _ comparison: AnswerComparison?, _ attempts: [AppStoreAttempt], temporary: Bool,
                        changes: [AppleChange] = [], contradiction: String? = nil) -> ReverifyReport {
        ReverifyReport(receiptId: q.receiptId, customerId: q.customerId, outcome: outcome, summary: summary,
                       appleEnvironment: environment, comparison: comparison, changes: changes, attempts: attempts, isTemporary: temporary,
                       contradiction: contradiction)
    }

    /// Writes what happened and returns the report (a failure to write is reported, not thrown).
    /// `appleVerdict` ("valid" / "invalid") is stored when Apple's answer judged the receipt, with
    /// `contradiction` (nil clears an earlier one).
    private func record(_ q: AppleQuestion, _ outcome: ReverifyReport.Outcome, _ summary: String, _ environment: Environment?,
                        _ purchases: [Purchase]?, _ attempts: [AppStoreAttempt], temporary: Bool,
                        appleVerdict: String? = nil, contradiction: String? = nil, rawAnswer: String? = nil) -> ReverifyReport {
        let comparison = purchases.map { AnswerComparison.compare(local: q.local, localEnvironment: q.localEnvironment, apple: $0,
                                                                  appleEnvironment: environment ?? .unknown) }
        do {
            let changes = try lock.run {
                try $0.recordReverification(receiptId: q.receiptId, customerId: q.customerId, attempts: attempts,
                                            appleEnvironment: environment, applePurchases: purchases, outcome: outcome,
                                            summary: summary, comparison: comparison, appleVerdict: appleVerdict,
                                            contradiction: contradiction, rawAnswer: rawAnswer, operatorName: operatorName)
            }
            return report(q, outcome, summary, environment, comparison, attempts, temporary: temporary, changes: changes,
                          contradiction: contradiction)
        } catch {
            return report(q, .failed, "\(summary); recording it failed: \(error)", environment, comparison, attempts, temporary: true,
                          contradiction: contradiction)
        }
    }

    /// Apple's answer as JSON text (keys sorted, indented), kept with the receipt for every
    /// operator. Written by `JSONValue` (Foundation's writer, sorting keys through ICU
    /// collation, took a quarter of a re-verification's CPU).
    static func rawAnswer(_ body: JSONObject) -> String? {
        body.jsonValue.prettyPrinted()
    }
}
