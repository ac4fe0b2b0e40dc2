import Foundation

/// Where the local decode of an artefact and Apple's answer about it disagree: fields that differ
/// per transaction, transactions only one side has, and the environment.
public struct AnswerComparison: Sendable, Equatable {
    /// One field of one transaction that the two sides state differently.
    public struct FieldDifference: Sendable, Equatable {
        public let transactionId: String
        public let field: String
        public let local: String
        public let apple: String
    }

    /// The environment each side states, when they differ (MISMATCH in the console).
    public let environmentMismatch: (local: Environment, apple: Environment)?
    public let onlyLocal: [String]
    public let onlyApple: [String]
    public let differences: [FieldDifference]

    public var isEmpty: Bool { environmentMismatch == nil && onlyLocal.isEmpty && onlyApple.isEmpty && differences.isEmpty }

    public static func == (lhs: AnswerComparison, rhs: AnswerComparison) -> Bool {
        lhs.environmentMismatch?.local == rhs.environmentMismatch?.local && lhs.environmentMismatch?.apple == rhs.environmentMismatch?.apple
            && lhs.onlyLocal == rhs.onlyLocal && lhs.onlyApple == rhs.onlyApple && lhs.differences == rhs.differences
    }

    /// Compares the purchases the artefact holds with those Apple reports.
    public static func compare(local: [Purchase], localEnvironment: Environment, apple: [Purchase],
                               appleEnvironment: Environment) -> AnswerComparison {
        let localById = Dictionary(local.compactMap { p in p.transactionId.map { ($0, p) } }, uniquingKeysWith: { first, _ in first })
        let appleById = Dictionary(apple.compactMap { p in p.transactionId.map { ($0, p) } }, uniquingKeysWith: { first, _ in first })
        var differences: [FieldDifference] = []
        for id in localById.keys.sorted() {
            guard let mine = localById[id], let theirs = appleById[id] else { continue }
            func check(_ field: String, _ a: String?, _ b: String?) {
                guard a != b else { return }
                differences.append(FieldDifference(transactionId: id, field: field, local: a ?? "–", apple: b ?? "–"))
            }
            func date(_ d: Date?) -> String? { d.map(RFC3339.format) }
            check("productId", mine.productId, theirs.productId)
            check("originalTransactionId", mine.originalTransactionId, theirs.originalTransactionId)
            check("quantity", mine.quantity.map(String.init), theirs.quantity.map(String.init))
            check("purchaseDate", date(mine.purchaseDate), date(theirs.purchaseDate))
            check("expiresDate", date(mine.expiresDate), date(theirs.expiresDate))
            check("cancellationDate", date(mine.cancellationDate ?? mine.revocationDate), date(theirs.cancellationDate ?? theirs.revocationDate))
        }
        let mismatch = localEnvironment != appleEnvironment && localEnvironment != .unknown && appleEnvironment != .unknown
        return AnswerComparison(environmentMismatch: mismatch ? (localEnvironment, appleEnvironment) : nil,
                                onlyLocal: localById.keys.filter { appleById[$0] == nil }.sorted(),
                                onlyApple: appleById.keys.filter { localById[$0] == nil }.sorted(),
                                differences: differences)
    }

    /// One line per difference, for the CLI and the console.
    public var lines: [String] {
        var lines: [String] = []
        if let mismatch = environmentMismatch {
            lines.append("MISMATCH environment: receipt says \(mismatch.local.badge), Apple says \(mismatch.apple.badge)")
        }
        lines += differences.map { "transaction \($0.transactionId) \($0.field): receipt \($0.local), Apple \($0.apple)" }
        lines += onlyApple.map { "transaction \($0): only Apple has it (renewal or newer purchase)" }
        lines += onlyLocal.map { "transaction \($0): only the receipt has it (Apple did not return it)" }
        return lines
    }
}
