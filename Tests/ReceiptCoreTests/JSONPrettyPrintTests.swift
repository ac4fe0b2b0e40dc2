import Foundation
import ReceiptCore
import Testing

/// Apple's answers are kept as indented JSON with sorted keys (`JSONObject.jsonValue`,
/// `JSONValue.prettyPrinted`): the text reads back as exactly the answer that came.
@Suite("Indented JSON of Apple's answers")
struct JSONPrettyPrintTests {
    static let answer = #"""
    {"status":0,"environment":"Sandbox","is-retryable":false,"receipt":{"receipt_type":"ProductionSandbox","adam_id":0,
     "bundle_id":"com.example.app","in_app":[{"quantity":"1","product_id":"com.example.pro.monthly","transaction_id":"1000000123",
     "is_trial_period":"false","purchase_date_ms":"1714550400000"}],"version_external_identifier":0,"request_date_ms":1714550400123},
     "latest_receipt_info":[],"pending_renewal_info":[{"auto_renew_status":"1","price":4.99,"note":"naïve \"quoted\" \\ 🧾\n\ttab",
     "nothing":null,"big":9007199254740993,"negative":-3,"whole":2.0,"flags":[true,false,1,0]}],"empty":{}}
    """#

    @Test func theTextReadsBackAsTheAnswer() throws {
        let body = try JSONObject(parsing: Array(Self.answer.utf8), what: "answer")
        let text = body.jsonValue.prettyPrinted()
        let original = try JSONSerialization.jsonObject(with: Data(Self.answer.utf8)) as? NSDictionary
        let readBack = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        #expect(readBack != nil && readBack == original, "\(text)")
        // Booleans stay booleans and numbers numbers (NSNumber equality alone would not tell).
        #expect(text.contains(#""is-retryable" : false"#) && text.contains(#""flags" : [\#n        true,\#n        false,\#n        1,\#n        0\#n      ]"#))
        #expect(text.contains(#""big" : 9007199254740993"#) && text.contains(#""price" : 4.99"#) && text.contains(#""whole" : 2"#))
        #expect(text.contains(#""latest_receipt_info" : [],"#) && text.contains(#""empty" : {},"#) && text.contains(#""nothing" : null"#))
    }

    @Test func keysAreSortedAndIndentedAtEveryLevel() throws {
        let text = try JSONObject(parsing: Array(Self.answer.utf8), what: "answer").jsonValue.prettyPrinted()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "{" && lines.last == "}")
        #expect(lines[1] == #"  "empty" : {},"#)
        // Within each object the keys come in order: the top level's, then the receipt's.
        let top = lines.filter { $0.hasPrefix(#"  ""#) }.map { $0.dropFirst(3).prefix { $0 != "\"" } }
        #expect(top == ["empty", "environment", "is-retryable", "latest_receipt_info", "pending_renewal_info", "receipt", "status"])
        let receipt = lines.drop { !$0.hasPrefix(#"  "receipt""#) }.dropFirst().prefix { $0 != "  }," }
            .filter { $0.hasPrefix(#"    ""#) }.map { $0.dropFirst(5).prefix { $0 != "\"" } }
        #expect(receipt == ["adam_id", "bundle_id", "in_app", "receipt_type", "request_date_ms", "version_external_identifier"])
    }
}
