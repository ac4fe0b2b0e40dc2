import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore

/// `receiptdesk serve [--listen HOST:PORT] --tokens FILE [--db PATH|URL] [--config FILE]
/// [--max-body BYTES] [--max-connections N] [--idle-timeout SECONDS] [--trust-proxy ADDRESS]...`: the live service (the
/// app's purchase endpoint, Apple's notification receiver, entitlements, health and metrics)
/// until SIGTERM or SIGINT, which stop it gracefully (exit 0).
/// `receiptdesk serve token add NAME --tokens FILE`: a new bearer token for client NAME,
/// printed once; the file keeps its hash.
enum ServeCommand {
    static let usage = """
    usage: receiptdesk serve [--listen HOST:PORT] --tokens FILE [--db PATH|URL] [--config FILE]
                             [--max-body BYTES] [--max-connections N] [--idle-timeout SECONDS]
                             [--trust-proxy ADDRESS]...  (its X-Forwarded-For names the client in the audit)
           receiptdesk serve token add NAME --tokens FILE
    """

    static func run(_ arguments: [String]) throws -> ExitStatus {
        if arguments.first == "token" { return try token(Array(arguments.dropFirst())) }
        var args = Arguments(arguments)
        let listen = try args.value("--listen") ?? "127.0.0.1:8080"
        let tokensPath = try args.value("--tokens") ?? ProcessInfo.processInfo.environment["RECEIPTDESK_SERVE_TOKENS"]
        var limits = HTTPServer.Limits()
        if let text = try args.value("--max-body") { limits.maxBodyBytes = try number(text, "--max-body", 1...(64 << 20)) }
        if let text = try args.value("--max-connections") { limits.maxConnections = try number(text, "--max-connections", 1...10_000) }
        if let text = try args.value("--idle-timeout") { limits.idleTimeout = .seconds(try number(text, "--idle-timeout", 1...3600)) }
        let proxies = Set(try args.values("--trust-proxy"))
        let options = try StoreOptions.take(&args)
        _ = try args.finish(maxPositionals: 0)
        guard let tokensPath else {
            throw CommandFailure.usage("serve needs --tokens FILE (make one with `receiptdesk serve token add NAME --tokens FILE`)")
        }
        let tokens: ServeTokens
        do { tokens = try ServeTokens.load(tokensPath) } catch { throw CommandFailure.usage("\(error)") }
        let (host, port) = try address(listen)
        let writer = try options.openLedger(mayCreate: false, checkingRevocation: true)
        let reader = try options.openLedger(mayCreate: false)
        let server: LiveServer
        do {
            server = try LiveServer(writer: writer, reader: reader, tokens: tokens,
                                    configuration: HTTPServer.Configuration(host: host, port: port, limits: limits,
                                                                            log: { printError("receiptdesk serve: \($0)") }),
                                    trustedProxies: proxies)
            try server.start()
        } catch let error as HTTPServiceError {
            throw CommandFailure(status: .unavailable, message: "serve: cannot listen on \(listen): \(error)")
        }
        // Signals are taken by a dispatch source, not a handler: the stop runs on a normal thread.
        let stopRequested = DispatchSemaphore(value: 0)
        let sources = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopRequested.signal() }
            source.resume()
            return source
        }
        print("receiptdesk serve: listening on http://\(host.contains(":") ? "[\(host)]" : host):\(server.port) (\(tokens.entries.count) client token\(tokens.entries.count == 1 ? "" : "s"))")
        fflush(nil)  // whoever started it reads the port now
        stopRequested.wait()
        printError("receiptdesk serve: stopping: no new connections, answering what is in flight")
        server.stop(grace: .seconds(10))
        sources.forEach { $0.cancel() }
        printError("receiptdesk serve: stopped; every answered request is committed")
        return .ok
    }

    static func token(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let path = try args.value("--tokens") ?? ProcessInfo.processInfo.environment["RECEIPTDESK_SERVE_TOKENS"]
        let positionals = try args.finish(maxPositionals: 2)
        guard positionals.count == 2, positionals[0] == "add", let path else {
            throw CommandFailure.usage("serve token add NAME --tokens FILE")
        }
        do {
            let token = try ServeTokens.add(name: positionals[1], to: path)
            print(token)
            printError("receiptdesk serve: token for \(positionals[1]) added to \(path) (its hash only); this is the only time it is shown")
            return .ok
        } catch {
            throw CommandFailure.usage("\(error)")
        }
    }

    static func address(_ text: String) throws -> (String, Int) {
        var host = text, portText = ""
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = String(text[close...].dropFirst(2))
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard let port = Int(portText), (0...65_535).contains(port), !host.isEmpty else {
            throw CommandFailure.usage("--listen \(text) is not HOST:PORT (for example 127.0.0.1:8080)")
        }
        return (host, port)
    }

    static func number(_ text: String, _ flag: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw CommandFailure.usage("\(flag) \(text) is not a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}
