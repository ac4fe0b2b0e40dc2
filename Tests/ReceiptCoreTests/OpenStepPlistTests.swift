import Foundation
import ReceiptCore
import Testing

/// The OpenStep plist parser behind legacy receipts. (The suite name starts with "Legacy" so that
/// `swift test --filter Legacy` runs it with the receipt tests.)
@Suite struct LegacyOpenStepPlistTests {
    private func parse(_ text: String) throws -> PlistValue {
        try PlistValue(openStep: Array(text.utf8))
    }

    // MARK: values

    @Test func dictionaryKeepsKeysInOrder() throws {
        let value = try parse(#"{ zeta = 1; alpha = "two"; "m id" = <0a0B ff>; list = (a, "b", (), {},); }"#)
        let entries = try #require(value.entries)
        #expect(entries.map(\.key) == ["zeta", "alpha", "m id", "list"])
        #expect(value["zeta"] == .string("1"))
        #expect(value["alpha"]?.stringValue == "two")
        #expect(value["m id"] == .data([0x0A, 0x0B, 0xFF]))
        #expect(value["list"] == .array([.string("a"), .string("b"), .array([]), .dictionary([])]))
        #expect(value["missing"] == nil)
    }

    @Test func commentsAndWhitespaceAnywhereBetweenTokens() throws {
        let text = "// header\n{ /* block\n comment */ a /* k */ = // line\n b ; \r\n\t}\n/* end */ // done"
        #expect(try parse(text) == .dictionary([PlistEntry(key: "a", value: .string("b"))]))
    }

    @Test func unquotedStringsUseTheOpenStepCharacterSet() throws {
        #expect(try parse("A_z$0+/:.-9") == .string("A_z$0+/:.-9"))
        #expect(try parse("a//b") == .string("a//b"))  // not a comment inside a word
        #expect(try parse("( x,y )") == .array([.string("x"), .string("y")]))
    }

    @Test func escapesInQuotedStrings() throws {
        let text = #""q\" s\' b\\ n\n t\t r\r a\a b\b f\f v\v e\U00e9 \u00E8 smile\UD83D\UDE00 oct\101\7 \0""#
        let expected = "q\" s' b\\ n\n t\t r\r a\u{07} b\u{08} f\u{0C} v\u{0B} e\u{E9} \u{E8} smile\u{1F600} octA\u{07} \u{0}"
        #expect(try parse(text) == .string(expected))
    }

    @Test func singleQuotesMultiLineAndRawUnicode() throws {
        #expect(try parse(#"'it"s'"#) == .string(#"it"s"#))
        #expect(try parse("\"line one\nline two\"") == .string("line one\nline two"))
        #expect(try parse("\"日本 €\"") == .string("日本 €"))
        #expect(try parse("\u{FEFF}\"bom\"") == .string("bom"))
    }

    @Test func dataWithSpacesBetweenBytes() throws {
        #expect(try parse("< 00 01\n0203 >") == .data([0, 1, 2, 3]))
        #expect(try parse("<>") == .data([]))
    }

    @Test func sixtyFourLevelsAreAllowed() throws {
        let text = String(repeating: "(", count: 64) + String(repeating: ")", count: 64)
        var value = try parse(text)
        var depth = 1
        while case .array(let items) = value, let first = items.first { value = first; depth += 1 }
        #expect(depth == 64)
    }

    @Test func elementLimitIsInclusive() throws {
        // The array itself counts, so 99,999 strings make exactly 100,000 elements.
        let text = "(" + String(repeating: "a,", count: OpenStepPlist.maxElements - 1) + ")"
        #expect(try parse(text).displayText == "(99999 elements)")
    }

    @Test func displayTextAndKinds() {
        #expect(PlistValue.data([1, 2]).displayText == "<2 bytes>")
        #expect(PlistValue.dictionary([]).displayText == "{0 keys}")
        #expect(PlistValue.array([]).kindName == "an array")
    }

    // MARK: errors (code and byte offset)

    @Test func truncatedDictionary() {
        expectPlistError(.truncated, ["byte 11", "expected ';'", "end of input"]) { _ = try parse(#"{ "a" = "b""#) }
        expectPlistError(.truncated, ["byte 12", "opened at byte 0"]) { _ = try parse(#"{ "a" = "b";"#) }
        expectPlistError(.truncated, ["byte 8", "expected a value"]) { _ = try parse(#"{ "a" = "#) }
        expectPlistError(.truncated, ["byte 0"]) { _ = try parse("") }
        expectPlistError(.truncated, ["byte 3", "')'"]) { _ = try parse("(a,") }
    }

    @Test func missingSemicolon() {
        expectPlistError(.unexpectedTag, ["byte 12", "expected ';' after value", "found '}'"]) {
            _ = try parse(#"{ "a" = "b" }"#)
        }
    }

    @Test func missingEqualsAndBadKeys() {
        expectPlistError(.unexpectedTag, ["byte 4", "expected '=' after key 'a'"]) { _ = try parse("{ a 1; }") }
        expectPlistError(.unexpectedTag, ["byte 2", "string key"]) { _ = try parse("{ (a) = b; }") }
        expectPlistError(.unexpectedTag, ["byte 3", "expected ',' or ')'"]) { _ = try parse("(a b)") }
        expectPlistError(.unexpectedTag, ["byte 1", "expected a value", "','"]) { _ = try parse("(,)") }
        expectPlistError(.unexpectedTag, ["byte 0", "'#'"]) { _ = try parse("#") }
    }

    @Test func unterminatedString() {
        expectPlistError(.truncated, ["byte 8", "unterminated string"]) { _ = try parse(#"{ "a" = "bc"#) }
        expectPlistError(.truncated, ["byte 0", "unterminated string"]) { _ = try parse(#""abc\"#) }
        expectPlistError(.truncated, ["byte 0", "'"]) { _ = try parse("'abc") }
    }

    @Test func badEscapes() {
        expectPlistError(.badValue, ["byte 2", #"unknown escape '\q'"#]) { _ = try parse(#""a\qb""#) }
        expectPlistError(.badValue, ["byte 1", "four hex digits"]) { _ = try parse(#""\U00e""#) }
        expectPlistError(.badValue, ["byte 1", "surrogate"]) { _ = try parse(#""\UD800""#) }
        expectPlistError(.badValue, ["byte 1", "surrogate"]) { _ = try parse(#""\UDC00""#) }
        expectPlistError(.badValue, ["byte 7", "low surrogate"]) { _ = try parse(#""\UD800\U0041""#) }
        expectPlistError(.badValue, ["byte 1", "outside ASCII"]) { _ = try parse(#""\200""#) }
    }

    @Test func badData() {
        expectPlistError(.badValue, ["byte 3", "one hex digit"]) { _ = try parse("<abc>") }
        expectPlistError(.unexpectedTag, ["byte 1", "hex digit", "'x'"]) { _ = try parse("<xy>") }
        expectPlistError(.truncated, ["byte 5", "opened at byte 0"]) { _ = try parse("<0102") }
    }

    @Test func tenThousandDeepNestingFailsCleanly() {
        expectPlistError(.tooDeep, ["byte 64", "64 levels"]) { _ = try parse(String(repeating: "(", count: 10_000)) }
        expectPlistError(.tooDeep, ["byte 192"]) { _ = try parse(String(repeating: "{a=", count: 10_000)) }
    }

    @Test func trailingGarbage() {
        expectPlistError(.trailingBytes, ["byte 4", "'x' after the top-level value"]) { _ = try parse("{ } x") }
        expectPlistError(.trailingBytes, ["byte 4"]) { _ = try parse(#""a" "b""#) }
        expectPlistError(.trailingBytes, ["byte 2", "';'"]) { _ = try parse("{};") }
    }

    @Test func invalidUTF8() {
        expectPlistError(.badUTF8, ["byte 3", "0xFF"]) { _ = try PlistValue(openStep: [0x22, 0x61, 0x62, 0xFF, 0x22]) }
        expectPlistError(.badUTF8, ["byte 1", "0xC0"]) { _ = try PlistValue(openStep: [0x22, 0xC0, 0x80, 0x22]) }  // overlong
        expectPlistError(.badUTF8, ["byte 1", "0xED"]) { _ = try PlistValue(openStep: [0x22, 0xED, 0xA0, 0x80, 0x22]) }  // surrogate
        expectPlistError(.badUTF8, ["byte 2"]) { _ = try PlistValue(openStep: [0x22, 0x61, 0xE2, 0x82]) }  // cut short
    }

    @Test func duplicateKeysAreRejected() {
        expectPlistError(.badValue, ["byte 5", "duplicate key 'a'"]) { _ = try parse("{a=1;a=2;}") }
    }

    @Test func unterminatedComment() {
        expectPlistError(.truncated, ["byte 2", "'*/'"]) { _ = try parse("{ /* never closed }") }
    }

    @Test func sizeLimits() {
        let tooMany = "(" + String(repeating: "a,", count: OpenStepPlist.maxElements) + ")"
        expectPlistError(.tooLarge, ["byte", "100000 elements"]) { _ = try parse(tooMany) }
        let huge = [UInt8](repeating: 0x20, count: OpenStepPlist.maxInputBytes + 1)
        expectPlistError(.tooLarge, ["byte 16777216"]) { _ = try PlistValue(openStep: huge) }
    }

    @Test func contextPrefixesTheMessage() {
        expectPlistError(.unexpectedTag, ["legacy receipt: OpenStep plist at byte 12: expected ';' after value"]) {
            _ = try PlistValue(openStep: Array(#"{ "a" = "b" }"#.utf8), context: "legacy receipt")
        }
    }
}

/// Runs `body`, which must throw a `ReceiptError` with `code` whose reason contains every part.
private func expectPlistError(_ code: ReceiptError.Code, _ parts: [String],
                              sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a \(code) error, got a value", sourceLocation: sourceLocation)
    } catch let error as ReceiptError {
        #expect(error.code == code, "code \(error.code): \(error.reason)", sourceLocation: sourceLocation)
        for part in parts {
            #expect(error.reason.contains(part), "'\(part)' not in: \(error.reason)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("expected ReceiptError, got \(error)", sourceLocation: sourceLocation)
    }
}
