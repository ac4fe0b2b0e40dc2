import Foundation
import Testing
@testable import ReceiptCore

/// Base64 as it was decoded one character at a time, messages included: the reference the
/// four-at-a-time decoder must agree with on every input.
enum ReferenceBase64 {
    static func decode(_ text: [UInt8], url: Bool) throws -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + (url ? [0x2D, 0x5F] : [0x2B, 0x2F])
        let allowSpace = !url
        let what = "test"
        var output: [UInt8] = []
        var accumulator: UInt32 = 0, count = 0, padding = 0
        for offset in 0..<text.count {
            let byte = text[offset]
            if let value = alphabet.firstIndex(of: byte) {
                guard padding == 0 else { throw ReceiptError(.badBase64, "\(what): base64 data after '=' padding at byte \(offset)") }
                accumulator = accumulator << 6 | UInt32(value)
                count += 1
                if count == 4 {
                    output += [UInt8(truncatingIfNeeded: accumulator >> 16), UInt8(truncatingIfNeeded: accumulator >> 8), UInt8(truncatingIfNeeded: accumulator)]
                    accumulator = 0
                    count = 0
                }
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(byte) && allowSpace {
                continue
            } else if byte == 0x3D && allowSpace {
                padding += 1
                guard padding <= 2 else { throw ReceiptError(.badBase64, "\(what): too much '=' padding at byte \(offset)") }
            } else {
                let shown = byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02x", byte)
                throw ReceiptError(.badBase64, "\(what): \(shown) at byte \(offset) is not \(allowSpace ? "base64" : "base64url")")
            }
        }
        switch count {
        case 0: break
        case 2: output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3: output += [UInt8(truncatingIfNeeded: accumulator >> 10), UInt8(truncatingIfNeeded: accumulator >> 2)]
        default: throw ReceiptError(.badBase64, "\(what): base64 ends with a lone character at byte \(text.count)")
        }
        guard padding == 0 || (count + padding) % 4 == 0 else { throw ReceiptError(.badBase64, "\(what): wrong '=' padding at byte \(text.count)") }
        return output
    }
}

/// Whether two JSONSerialization-shaped values are the same: same Swift types, same numbers
/// with the same Objective-C type code (booleans are told apart by it), same members.
func sameJSON(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case let (x as String, y as String): return x == y
    case let (x as NSNull, y as NSNull): return x == y
    case let (x as NSNumber, y as NSNumber):
        return x.objCType.pointee == y.objCType.pointee && x.int64Value == y.int64Value && x.doubleValue == y.doubleValue
            && type(of: x) == type(of: y)
    case let (x as [Any], y as [Any]): return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
    case let (x as [String: Any], y as [String: Any]):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
    default: return false
    }
}

@Suite("JWS fast paths agree with the full ones")
struct JWSFastPathTests {
    static func realParts() throws -> [[UInt8]] {
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".").map { Array($0.utf8) }
        return [try Base64.decodeURL(bytes: parts[0][...], "h"), try Base64.decodeURL(bytes: parts[1][...], "p")]
    }

    @Test("base64 four at a time: the same bytes or the same error as one at a time")
    func base64AgreesWithTheReference() throws {
        let text = Array(try SampleFiles.text("unified-sandbox-sha256-g5.b64").utf8.prefix(160))
        let samples: [[UInt8]] = [text, Array("QUJD\nREVG\r\n R0g=".utf8), Array("QUI=".utf8), Array("QQ==".utf8), Array("QUJDRA".utf8),
                                  Array("QUJD=REVG".utf8), Array("Q===".utf8), Array("-_-_".utf8), Array("+/+/".utf8), []]
        for sample in samples {
            for input in Mutations.of(sample) + [sample] {
                for url in [false, true] {
                    let reference = Outcome { try ReferenceBase64.decode(input, url: url) }
                    let current = Outcome { try input.withUnsafeBufferPointer { buffer in
                        url ? try Base64.decodeURL(bytes: input[...], "test") : try Base64.decode(String(decoding: buffer, as: UTF8.self), "test")
                    } }
                    // Non-UTF-8 text cannot reach the standard decoder unchanged through a String.
                    if url || String(validating: input, as: UTF8.self) != nil { #expect(reference == current, "\(input)") }
                }
            }
        }
    }

    @Test("plain JSON gives JSONSerialization's values, or leaves the text to it")
    func plainJSONAgreesWithJSONSerialization() throws {
        var texts = try Self.realParts()
        texts += [
            #"{}"#, #"{"a":[]}"#, #" { "a" : [ 1 , -2 , 0 , true , false , null , "x" , { } ] } "#, #"{"a":1,"a":2}"#,
            #"{"a":-0}"#, #"{"a":01}"#, #"{"a":1.5}"#, #"{"a":1e3}"#, #"{"a":123456789012345678}"#, #"{"a":1234567890123456789}"#,
            // 19 nines overflow an Int: the fast reader must leave them to JSONSerialization, not trap.
            #"{"a":9999999999999999999}"#, #"{"a":-9999999999999999999}"#, #"{"a":[99999999999999999999999999999]}"#,
            #"{"a":"\u0041"}"#, #"{"a":"é"}"#, "{\"a\":\"tab\tin\"}", #"[1]"#, #""x""#, #"{"a":tru}"#, #"{"a":1,}"#, #"{"a" 1}"#,
            #"{"a":1} x"#, "\u{FEFF}{\"a\":1}", #"{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
            #"{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#, #"{"a":-9,"b":127,"c":5}"#,
        ].map { Array($0.utf8) }
        var plain = 0
        for text in texts {
            for input in Mutations.of(text, stride: max(1, text.count / 300)) + [text] {
                guard let fast = PlainJSON.object(input) else { continue }
                plain += 1
                let reference = try? JSONSerialization.jsonObject(with: Data(input), options: [])
                #expect(reference.map { sameJSON(fast, $0) } == true, "\(String(decoding: input.prefix(200), as: UTF8.self))")
                #expect(Outcome { try JSONObject.checkDepth(input, what: "t"); return true } == .value(true), "plain text is never too deep")
            }
        }
        #expect(plain > 500)
    }

    @Test("typed accessors read plain values as they read JSONSerialization's")
    func accessorsAgree() throws {
        for part in try Self.realParts() {
            let fast = JSONObject(try #require(PlainJSON.object(part)), what: "t")
            let slow = JSONObject(try #require(try JSONSerialization.jsonObject(with: Data(part)) as? [String: Any]), what: "t")
            for key in Array(slow.values.keys) + ["absent"] {
                #expect(fast.has(key) == slow.has(key))
                #expect(Outcome { try fast.string(key) } == Outcome { try slow.string(key) }, "\(key)")
                #expect(Outcome { try fast.int(key) } == Outcome { try slow.int(key) }, "\(key)")
                #expect(Outcome { try fast.bool(key) } == Outcome { try slow.bool(key) }, "\(key)")
                #expect(Outcome { try fast.millisecondsDate(key) } == Outcome { try slow.millisecondsDate(key) }, "\(key)")
            }
        }
    }

    @Test("compact JWS with surrounding space, extra dots or none keeps its messages and text")
    func compactShapes() throws {
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try CompactJWS(compact: " \n" + text + "\n").text == text)
        #expect(try CompactJWS(compact: text).text == text)
        let dots = try #require(throws: ReceiptError.self) { try CompactJWS(compact: text + ".x.y") }
        #expect(dots.reason == "JWS: compact JWS has 5 parts separated by '.', expected 3")
        let none = try #require(throws: ReceiptError.self) { try CompactJWS(compact: "abc") }
        #expect(none.reason == "JWS: compact JWS has 1 parts separated by '.', expected 3")
    }

    @Test("a header read again comes from the header cache only for the very same text, named by its caller")
    func headerCacheKnowsOnlyIdenticalText() throws {
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".").map(String.init)
        let header = String(decoding: try Base64.decodeURL(bytes: Array(parts[0].utf8)[...], "t"), as: UTF8.self)
        // The same length, another algorithm; and a header that does not parse, twice.
        let other = Base64.encodeURL(Array(header.replacingOccurrences(of: "\"ES256\"", with: "\"ES384\"").utf8))
        let broken = Base64.encodeURL(Array(("[" + header.dropFirst()).utf8))
        try #require(other.count == parts[0].count && other != parts[0])
        for round in 0..<3 {
            let first = try CompactJWS(compact: text, what: "JWS transaction")
            let second = try CompactJWS(compact: [other, parts[1], parts[2]].joined(separator: "."), what: "JWS renewal")
            #expect(first.algorithm == "ES256" && second.algorithm == "ES384", "round \(round)")
            #expect(first.x5c == second.x5c && first.x5c?.count == 3)
            #expect(first.header.what == "JWS transaction header" && second.header.what == "JWS renewal header")
            let failure = try #require(throws: ReceiptError.self) { try CompactJWS(compact: [broken, parts[1], parts[2]].joined(separator: ".")) }
            #expect(failure.reason.hasPrefix("JWS header"), "\(failure.reason)")
        }
    }

    /// Payloads whose known members take every shape the accessors tell apart.
    static let oddPayloads: [String] = [
        #"{"transactionId":123,"quantity":"5","purchaseDate":"1759302552000.5","expiresDate":true,"price":null}"#,
        #"{"transactionId":"1","originalTransactionId":false,"signedDate":99999999999999999}"#,
        #"{"transactionId":"1","purchaseDate":-999999999999999999,"expiresDate":9007199254740993,"signedDate":"x"}"#,
        #"{"transactionId":"1","quantity":"99999999999999999999","offerType":"2","offerIdentifier":7}"#,
        #"{"transactionId":"1","quantity":"1.0","price":"-0","currency":[1],"storefront":{"a":1}}"#,
        #"{"transactionId":"1","nested":{"transactionId":"n","quantity":true},"bundleId":null,"environment":1}"#,
        #"{"transactionId":"1","revocationDate":"1e3","originalPurchaseDate":"253402300800000","offerType":1}"#,
        #"{"transactionId":"1","expiresDate":253402300799999,"revocationDate":-62167219200001,"type":"Consumable"}"#,
        #"{"transactionId":"1","transactionId":"2"}"#, #"{"transactionId":"1","quantity":1.5}"#,
        #"{"transactionId":"1","quantity":12345678901234567890}"#, #"{"transactionId":"café","storefrontId":"\t"}"#,
        #"{"transactionI":"1","transactionIdd":2,"":3,"appAccountToken":"","webOrderLineItemId":-0}"#,
        #"{"transaction\u0049d":"1","quantity":1}"#, #"{"transactionId":"1","quantity\"":1}"#, #"{ "quantity" :1,"transactionId" : "2" }"#,
        #"{"transactionId":"1","signedDate":nul}"#, #"{"transactionId":"1","price":-12,"offerType":2,"offerIdentifier":"x"}"#,
        // Members no decoder reads: named twice, or alike but not the same; containers among them.
        #"{"transactionId":"1","deviceVerification":"a","deviceVerification":"b"}"#, #"{"":1,"transactionId":"1","":2}"#,
        #"{"transactionId":"1","ab":1,"ba":2,"abc":true,"x":{"a":1,"a":2}}"#, #"{"transactionId":"1","x":[{"b":null}],"y":false}"#,
    ]

    /// Everything a transaction decodes to, payload included, to compare two decodings.
    struct Decoded: Equatable {
        let purchase: Purchase, environment: EnvironmentReading, signedDate: Date?, price: Int64?, offerType: Int64?
        let strings: [String?]
        let what: String, members: [String: String]

        init(_ t: SignedTransaction) {
            (purchase, environment, signedDate, price, offerType) = (t.purchase, t.environment, t.signedDate, t.price, t.offerType)
            strings = [t.bundleId, t.transactionReason, t.storefront, t.currency, t.subscriptionGroupIdentifier, t.offerIdentifier, t.storefrontId]
            what = t.payload.what
            members = Dictionary(uniqueKeysWithValues: t.payload.values.map { key, value in
                (key, "\(type(of: value)) \(JSONObject.display(value)) \((value as? NSNumber).map { String(cString: $0.objCType) } ?? "")")
            })
        }
    }

    @Test("a transaction decoded from members kept typed during the parse equals one decoded from the parsed object")
    func capturedMembersAgree() throws {
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".").map(String.init)
        let real = try Self.realParts()[1]
        var payloads = Mutations.of(real) + [real]
        for odd in Self.oddPayloads { payloads += Mutations.of(Array(odd.utf8), stride: 3) + [Array(odd.utf8)] }
        var captured = 0, decoded = 0
        for payload in payloads {
            let compact = [parts[0], Base64.encodeURL(payload), parts[2]].joined(separator: ".")
            let current = Outcome { Decoded(try SignedTransaction(compactJWS: compact)) }
            let reference = Outcome { () -> Decoded in
                let jws = try CompactJWS(compact: compact, what: "JWS transaction")
                return Decoded(try SignedTransaction(payload: try JSONObject(parsing: jws.payload, what: "JWS transaction payload"), jws: jws))
            }
            #expect(current == reference, "\(String(decoding: payload.prefix(300), as: UTF8.self))")
            // Reading the known members alone accepts exactly the texts the plain reader accepts
            // (so an object left unbuilt can always be built later) and keeps each member as the
            // plain reader's value of it.
            let plain = PlainJSON.object(payload)
            let known = KnownMembers(["transactionId", "quantity", "purchaseDate"])
            let membersOnly = PlainJSON.members(payload, capturing: known)
            #expect((membersOnly == nil) == (plain == nil), "\(String(decoding: payload.prefix(300), as: UTF8.self))")
            if let plain {
                #expect(membersOnly == known.names.map { Self.kept(plain[$0]) })
                captured += 1
            }
            if case .value = current { decoded += 1 }
        }
        #expect(captured > 1_000 && decoded > 1_000, "\(captured) captured, \(decoded) decoded")
    }

    /// What the members-only reader keeps for a member whose plain-read value is `value`.
    static func kept(_ value: Any?) -> PlainMember {
        switch value {
        case nil: return .absent
        case is NSNull: return .null
        case let text as String: return .string(text)
        // The plain reader makes numbers from integers and booleans only; booleans are type "c".
        case let number as NSNumber where String(cString: number.objCType) != "c": return .int(number.intValue)
        default: return .other
        }
    }

    @Test("a payload left unbuilt is built once, the same for every thread that asks at once")
    func deferredPayloadAcrossThreads() async throws {
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        let transaction = try SignedTransaction(compactJWS: text)
        let reference = try #require(try JSONSerialization.jsonObject(with: Data(try Self.realParts()[1])) as? [String: Any])
        func shown(_ values: [String: Any]) -> String {
            values.keys.sorted().map { "\($0)=\(type(of: values[$0]!)) \(JSONObject.display(values[$0]!))" }.joined(separator: ",")
        }
        let expected = shown(reference)
        let seen = await withTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { shown(transaction.payload.values) } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(seen.count == 16 && seen.allSatisfy { $0 == expected })
        #expect(sameJSON(transaction.payload.values, reference))
        #expect(transaction.payload.what == "JWS transaction payload")
    }

    @Test("known member names are found by their exact bytes only")
    func knownMembersFindExactNames() {
        let names = ["transactionId", "quantity", "a", "ab", "ba", "price", "currency", "storefront", "storefrontId"]
        let known = KnownMembers(names)
        for (position, name) in names.enumerated() {
            #expect(Array(name.utf8).withUnsafeBufferPointer { known.position(of: $0) } == position)
        }
        for other in ["", "b", "transactionid", "transactionId ", "storefrontI", "abc", "quantitx"] {
            #expect(Array(other.utf8).withUnsafeBufferPointer { known.position(of: $0) } == nil, "\(other)")
        }
    }
}
