import Foundation
@testable import ReceiptCore
import Testing

/// The decoder's byte-level shortcuts say exactly what Foundation's string functions say.
@Suite("Decoder text fast paths")
struct DecoderTextFastPathTests {
    static let samples: [String] = [
        "", " ", "\n\t ", "{}", "  {\"a\":1}\n", "\u{0B}\u{0C}abc\u{0B}", "\u{00A0}{x}\u{00A0}", "\u{2028} eyJ \u{3000}",
        "é", " é ", "\r\n\"receipt-data\"\r\n", "ab\u{85}", "\u{85}ab", "x\u{FEFF}", "日本 語", " \t{\"signedPayload\":\"a.b.c\"}\t ",
    ]

    @Test func trimmingMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        var inputs = Self.samples
        let pieces = [" ", "\n", "\t", "\r", "\u{0B}", "\u{0C}", "\u{00A0}", "\u{2028}", "\u{85}", "a", "{", "é", "語", "\u{3000}"]
        for _ in 0..<2_000 {
            inputs.append((0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        for text in inputs {
            #expect(ReceiptDecoder.trimmedText(Array(text.utf8), text) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func containsMatchesFoundation() {
        let needle = "\"receipt-data\""
        for text in Self.samples + ["\"receipt-data", "receipt-data\"", "xx\"receipt-data\"", "\"receipt-data\"", "\"\"receipt-data\""] {
            #expect(ReceiptDecoder.contains(Array(text.utf8), Array(needle.utf8)) == text.contains(needle), "\(text)")
        }
        #expect(ReceiptDecoder.contains([1, 2, 3], []))
        #expect(!ReceiptDecoder.contains([], [1]))
    }
}
