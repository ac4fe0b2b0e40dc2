import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// The transport allows plain http to exactly the hosts the config accepts as loopback.
@Suite("Loopback: the transport and the config agree")
struct AppStoreLoopbackAgreementTests {
    @Test func everySpellingTheConfigAcceptsTheTransportAcceptsAndNoOther() throws {
        for accepted in ["http://127.0.0.1:1/v", "http://127.8.9.10:1/v", "http://localhost:1/v", "http://LOCALHOST:1/v"] {
            #expect(URLSessionTransport.isLoopback(try #require(URL(string: accepted))), "\(accepted)")
        }
        for refused in ["http://evil.example/v", "http://128.0.0.1/v", "http://localhost.evil.example/v", "http://10.0.0.1/v"] {
            #expect(!URLSessionTransport.isLoopback(try #require(URL(string: refused))), "\(refused)")
        }
    }
}
