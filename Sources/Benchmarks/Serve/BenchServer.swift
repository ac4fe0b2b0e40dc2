import Foundation
import HTTPService
import LiveService
import PurchaseStore

/// `receiptdesk serve` inside the bench process, as the serve cases run it: a token file in the
/// scratch folder with one client, `bench`, and a `LiveServer` over the two ledgers given (at most
/// 128 connections: the 64 clients and room), started before `body` and stopped (5 s of grace)
/// when it returns or throws.
enum BenchServer {
    /// Runs `body` with the started server and the bench client's bearer token.
    static func serving<T>(writer: PurchaseLedger, reader: PurchaseLedger, scratch: BenchScratch,
                           _ body: (_ server: LiveServer, _ token: String) throws -> T) throws -> T {
        let tokens = scratch.folder.appendingPathComponent("tokens").path
        let token = try ServeTokens.add(name: "bench", to: tokens)
        let server = try LiveServer(writer: writer, reader: reader, tokens: try ServeTokens.load(tokens),
                                    configuration: HTTPService.HTTPServer.Configuration(limits: HTTPService.HTTPServer.Limits(maxConnections: 128)))
        try server.start()
        defer { server.stop(grace: .seconds(5)) }
        return try body(server, token)
    }
}
