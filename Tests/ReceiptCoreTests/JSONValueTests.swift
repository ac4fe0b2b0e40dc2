import Foundation
import ReceiptCore
import Testing

/// The compact JSON text that `decode --json`, stored decodes and audit details are made of:
/// its exact bytes matter (audit hashes cover them), and it must always parse.
@Suite("JSONValue serialization")
struct JSONValueTests {
    @Test func valuesSerializeToCompactJSONWithKeysInOrder() {
        let value = JSONValue.object([
            ("z", .int(0)), ("a", .int(-42)), ("min", .int(Int64.min)), ("max", .int(Int64.max)),
            ("t", .bool(true)), ("f", .bool(false)), ("n", .null), ("d", .double(1.5)), ("inf", .double(.infinity)),
            ("list", .array([.string("x"), .array([]), .object([])])),
        ])
        #expect(value.serialized() == #"{"z":0,"a":-42,"min":-9223372036854775808,"max":9223372036854775807,"t":true,"f":false,"n":null,"d":1.5,"inf":null,"list":["x",[],{}]}"#)
    }

    @Test func stringsAreEscapedWhereJSONRequiresAndOtherwiseCopiedWhole() {
        #expect(JSONValue.string("plain text, ünïcödé, 漢字, 🙂").serialized() == "\"plain text, ünïcödé, 漢字, 🙂\"")
        #expect(JSONValue.string("quote \" backslash \\ slash /").serialized() == #""quote \" backslash \\ slash /""#)
        // DEL, C1, bidirectional and zero-width characters too, so JSON output never carries one raw to a terminal.
        #expect(JSONValue.string("\n\r\t\u{0}\u{1F}\u{7F}").serialized() == #""\n\r\t\u0000\u001f\u007f""#)
        #expect(JSONValue.string("a\u{85}b\u{202E}c\u{200D}d 漢").serialized() == #""a\u0085b\u202ec\u200dd 漢""#)
        #expect(JSONValue.object([("ke\"y", .string("v"))]).serialized() == #"{"ke\"y":"v"}"#)
    }

    @Test func everySerializationParsesBackToTheSameValues() throws {
        let strings = ["", "a", "\"\\", "\u{1}\u{2}\u{1B}[31m", "日本語テキスト", "emoji 👩‍👩‍👧", String(repeating: "x", count: 5_000)]
        for text in strings {
            let json = JSONValue.array([.string(text), .object([(text, .int(7))])]).serialized()
            let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any]
            #expect(parsed?.first as? String == text, "\(json)")
            #expect((parsed?.last as? [String: Any])?[text] as? Int == 7)
        }
    }
}
