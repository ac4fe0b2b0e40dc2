import Foundation
import Testing
@testable import ReceiptCore

/// The locator that says where JSON text breaks, used when the parser refuses it.
@Suite("JSON syntax errors, located")
struct JSONSyntaxTests {
    @Test("well-formed JSON has no error, whatever its shape", arguments: [
        "{}", "[]", "0", "-1.5e+10", "\"a\\u00e9\\n\"", "true", "null", " {\"a\": [1, {\"b\": [true, false, null]}, \"x\"]} ",
        "[[[[[[[[[[]]]]]]]]]]", "{\"k\": {\"k\": {\"k\": {}}}}",
    ])
    func wellFormed(_ text: String) throws {
        #expect(JSONSyntax.firstError(Array(text.utf8)) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil)
    }

    @Test("every real sample's JSON is well-formed to it", arguments: ["transaction-payload.json", "notification-payload.json"])
    func samples(_ name: String) throws {
        #expect(JSONSyntax.firstError(try SampleFiles.bytes(name)) == nil)
    }

    @Test("each error says what and where", arguments: [
        ("{\"a\" 1}", "expected ':' after a member name, found '1' at line 1, column 6 (byte 5)"),
        ("{\"a\": 1", "the text ends inside an object at line 1, column 8 (byte 7)"),
        ("[1 2]", "expected ',' or ']', found '2' at line 1, column 4 (byte 3)"),
        ("{1: 2}", "expected a quoted member name, found '1' at line 1, column 2 (byte 1)"),
        ("\"abc", "a string starting at line 1, column 1 (byte 0) is never closed"),
        ("\"\\x\"", "unknown escape '\\x' at line 1, column 2 (byte 1)"),
        ("\"\\u12\"", "a \\u escape at line 1, column 2 (byte 1) needs four hex digits"),
        ("-", "a number at line 1, column 1 (byte 0) has no digits"),
        ("1.", "a number at line 1, column 1 (byte 0) has no digits after its '.'"),
        ("{} x", "unexpected 'x' after the JSON value at line 1, column 4 (byte 3)"),
        ("{\n\"é\": nul}", "unexpected '}' at line 2, column 9 (byte 11) (expected null at byte 8)"),
    ])
    func located(_ text: String, _ message: String) {
        #expect(JSONSyntax.firstError(Array(text.utf8)) == message)
    }

    @Test("deep nesting is walked without recursion")
    func deep() {
        let text = String(repeating: "[", count: 200_000)
        #expect(JSONSyntax.firstError(Array(text.utf8)) == "expected a value, found the end of the text at line 1, column 200001 (byte 200000)")
    }
}
