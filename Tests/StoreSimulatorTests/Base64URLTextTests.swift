import Foundation
@testable import StoreSimulator
import Testing

@Suite("Base64url text")
struct Base64URLTextTests {
    /// RFC 4648 §10's vectors, in the URL alphabet without padding.
    @Test func rfcVectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64Text.url(Array(plain.utf8)) == encoded, "\(plain)")
        }
    }

    /// Every length up to 300 and every byte value: the same as Foundation's base64 with the
    /// URL alphabet's two characters swapped in and the padding dropped.
    @Test func agreesWithFoundationOnEveryLengthAndByte() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { index in length % 3 == 0 ? UInt8(truncatingIfNeeded: index &* 7 &+ 251) : UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64Text.url(bytes) == expected, "length \(length)")
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64Text.url(all).contains("-") && Base64Text.url(all).contains("_"))
    }
}
