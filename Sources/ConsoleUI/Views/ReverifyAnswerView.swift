import Foundation
import PurchaseStore
import ReceiptCore

/// Apple's answer beside the local decode: the environment each states, every field that
/// differs (≠), transactions only one side has (+ / −), and what was applied.
enum ReverifyAnswerView {
    static func lines(_ report: ReverifyReport, width: Int) -> [DetailLine] {
        var lines: [DetailLine] = []
        let outcome: Span
        switch report.outcome {
        case .verified: outcome = Span("✓ verified", CellStyle(.ok, bold: true))
        case .rejected: outcome = Span("✗ rejected", CellStyle(.danger, bold: true))
        case .failed: outcome = Span("✗ failed", CellStyle(.danger, bold: true))
        case .skipped: outcome = Span("– skipped", CellStyle(.warning))
        case .contradicted: outcome = Span("✗ CONTRADICTS the local verdict", CellStyle(.danger, bold: true))
        }
        lines.append(DetailLine([Span("Apple's answer ", .heading), outcome]))
        let style = [.failed, .rejected, .contradicted].contains(report.outcome) ? CellStyle(.danger) : CellStyle.plain
        lines += DetailLines.paragraph(report.summary, width: width, indent: 2, style: style)
        if report.outcome == .failed || report.outcome == .contradicted {
            lines.append(DetailLine([Span("  nothing changed", CellStyle(.danger))]))
            return lines
        }
        guard let comparison = report.comparison else { return lines }
        lines += width >= 70 ? table(comparison, report: report, width: width) : stacked(comparison, report: report, width: width)
        if comparison.isEmpty {
            lines.append(DetailLine([Span("  = ", CellStyle(.ok)), Span("the receipt and Apple agree on every transaction", CellStyle(.ok))]))
        }
        for change in report.changes {
            lines += DetailLines.paragraph("\(change.kind.rawValue) \(change.transactionId): \(change.detail)", width: width, indent: 2,
                                           style: CellStyle(.accent), first: "applied: ")
        }
        return lines
    }

    /// Wide panes: field, the receipt's value and Apple's side by side.
    static func table(_ comparison: AnswerComparison, report: ReverifyReport, width: Int) -> [DetailLine] {
        var lines: [DetailLine] = []
        let labelWidth = min(32, max(20, width / 3))
        let column = max(12, (width - labelWidth - 6) / 2)
        lines.append(DetailLine([Span("    " + DisplayWidth.fit("", to: labelWidth), .muted), Span(DisplayWidth.fit("receipt (local)", to: column), .bold),
                                 Span(" " + DisplayWidth.fit("Apple", to: column), .bold)]))
        if let mismatch = comparison.environmentMismatch {
            lines.append(DetailLine([Span("  ≠ ", CellStyle(.danger, bold: true)), Span(DisplayWidth.fit("environment", to: labelWidth)),
                                     ConsoleFormat.badge(mismatch.local),
                                     Span(String(repeating: " ", count: max(1, column + 1 - DisplayWidth.of(mismatch.local.badge)))),
                                     ConsoleFormat.badge(mismatch.apple), Span("  "), ConsoleFormat.mismatch]))
        } else if let environment = report.appleEnvironment {
            lines.append(DetailLine([Span("  = ", CellStyle(.ok)), Span(DisplayWidth.fit("environment", to: labelWidth)),
                                     ConsoleFormat.badge(environment),
                                     Span(String(repeating: " ", count: max(1, column + 1 - DisplayWidth.of(environment.badge)))),
                                     ConsoleFormat.badge(environment)]))
        }
        for difference in comparison.differences {
            let label = ConsoleFormat.shortId(difference.transactionId, max(8, labelWidth - difference.field.count - 1)) + " " + difference.field
            lines.append(DetailLine([Span("  ≠ ", CellStyle(.danger, bold: true)), Span(DisplayWidth.fit(label, to: labelWidth)),
                                     Span(DisplayWidth.fit(difference.local, to: column)), Span(" "),
                                     Span(DisplayWidth.fit(difference.apple, to: column), CellStyle(.warning))]))
        }
        for id in comparison.onlyApple {
            lines.append(DetailLine([Span("  + ", CellStyle(.warning, bold: true)), Span(DisplayWidth.fit(id, to: labelWidth)),
                                     Span(DisplayWidth.fit("–", to: column)), Span(" only Apple has it", CellStyle(.warning))]))
        }
        for id in comparison.onlyLocal {
            lines.append(DetailLine([Span("  − ", CellStyle(.warning, bold: true)), Span(DisplayWidth.fit(id, to: labelWidth)),
                                     Span(DisplayWidth.fit("only the receipt has it", to: column), CellStyle(.warning)), Span(" –")]))
        }
        return lines
    }

    /// Narrow panes: each difference with the receipt's value above Apple's.
    static func stacked(_ comparison: AnswerComparison, report: ReverifyReport, width: Int) -> [DetailLine] {
        var lines: [DetailLine] = []
        if let mismatch = comparison.environmentMismatch {
            lines.append(DetailLine([Span("  ≠ ", CellStyle(.danger, bold: true)), Span("environment  "), ConsoleFormat.mismatch]))
            lines.append(DetailLine([Span("      receipt ", .muted), ConsoleFormat.badge(mismatch.local)]))
            lines.append(DetailLine([Span("      Apple   ", .muted), ConsoleFormat.badge(mismatch.apple)]))
        } else if let environment = report.appleEnvironment {
            lines.append(DetailLine([Span("  = ", CellStyle(.ok)), Span("environment  "), ConsoleFormat.badge(environment)]))
        }
        for difference in comparison.differences {
            lines.append(DetailLine([Span("  ≠ ", CellStyle(.danger, bold: true)), Span(difference.transactionId + " " + difference.field)]))
            lines.append(DetailLine([Span("      receipt ", .muted), Span(difference.local)]))
            lines.append(DetailLine([Span("      Apple   ", .muted), Span(difference.apple, CellStyle(.warning))]))
        }
        for id in comparison.onlyApple {
            lines.append(DetailLine([Span("  + ", CellStyle(.warning, bold: true)), Span(id + " "), Span("only Apple has it", CellStyle(.warning))]))
        }
        for id in comparison.onlyLocal {
            lines.append(DetailLine([Span("  − ", CellStyle(.warning, bold: true)), Span(id + " "), Span("only the receipt has it", CellStyle(.warning))]))
        }
        return lines
    }
}
