import Dispatch
import Foundation
import ReceiptCore
import StoreSimulator

/// `receiptdesk simulator [--port N] [--host 127.0.0.1] [--state DIR] [--shared-secret-file F]
/// [--api-public-key PEM --issuer-id ID [--api-key-id KID]] [--bundle-id ID] [--latency-ms N] [--notify-url URL]`
///
/// Runs the App Store simulator (verifyReceipt and the App Store Server API for production and
/// sandbox, on loopback only) in the foreground until SIGINT or SIGTERM. The first line printed
/// is `simulator listening on http://127.0.0.1:PORT`, so scripts can read the port.
enum SimulatorCommand {
    static let usage = """
    usage: receiptdesk simulator [--port N] [--host 127.0.0.1] [--state DIR] [--shared-secret-file FILE]
                                 [--api-public-key PEM --issuer-id ID [--api-key-id KID]] [--bundle-id ID]
                                 [--latency-ms N] [--notify-url http://127.0.0.1:PORT/PATH]
    """

    static func run(_ arguments: [String]) throws -> ExitStatus {
        if arguments.first == "mint" { return try SimulatorMintCommand.run(Array(arguments.dropFirst())) }
        var args = Arguments(arguments)
        if args.flag("--help") || args.flag("-h") {
            print(usage)
            return .ok
        }
        let portText = try args.value("--port")
        let host = try args.value("--host") ?? "127.0.0.1"
        let stateDirectory = try args.value("--state")
        let secretFile = try args.value("--shared-secret-file")
        let keyFile = try args.value("--api-public-key")
        let keyIdText = try args.value("--api-key-id")
        let issuerId = try args.value("--issuer-id")
        let bundleId = try args.value("--bundle-id") ?? "com.example.receiptdesk"
        let latencyText = try args.value("--latency-ms")
        let notifyURL = try args.value("--notify-url")
        _ = try args.finish(maxPositionals: 0)

        guard let port = UInt16(portText ?? "0") else { throw CommandFailure.usage("--port \(portText ?? ""): not a port number (0–65535)") }
        guard let latency = Double(latencyText ?? "0"), latency >= 0, latency <= 60_000 else {
            throw CommandFailure.usage("--latency-ms \(latencyText ?? ""): not a number of milliseconds (0–60000)")
        }
        let state: SimulatorState
        do {
            if let stateDirectory {
                state = try SimulatorStateDirectory.open(URL(fileURLWithPath: stateDirectory), bundleId: bundleId)
            } else {
                state = SimulatorState(authority: try TestCertificateAuthority.make(validFrom: SimulatorStateDirectory.validFrom,
                                                                                     validUntil: SimulatorStateDirectory.validUntil),
                                       bundleId: bundleId)
            }
        } catch let error as SimulatorError {
            throw CommandFailure(status: .unavailable, message: error.reason)
        }
        if let secretFile { state.sharedSecret = try readSecret(secretFile) }
        if let keyFile { state.serverAPIKey = try apiKey(file: keyFile, keyId: keyIdText, issuerId: issuerId) }
        if let notifyURL {
            // Notifications are POSTed only to loopback http URLs; anything else is a usage error.
            guard let url = URL(string: notifyURL) else { throw CommandFailure.usage("--notify-url \(notifyURL.prefix(200)): not a URL") }
            do {
                try state.setNotificationURL(url)
            } catch let error as SimulatorError {
                throw CommandFailure.usage("--notify-url: \(error.reason)")
            }
        }

        let simulator: AppStoreSimulator
        do {
            simulator = try AppStoreSimulator(state: state, host: host, port: port)
            simulator.faults.latency = latency / 1000
            try simulator.start()
        } catch let error as SimulatorError {
            throw CommandFailure(status: error.code == .notLoopback ? .usage : .unavailable, message: error.reason)
        }
        let base = simulator.baseURL.absoluteString
        // Listen for Ctrl-C / SIGTERM before saying we are up, so an early signal is never lost.
        let termination = TerminationSignal()
        say("""
        simulator listening on \(base)
          not Apple: receipts and JWS are signed with receiptdesk's test authority
          verifyReceipt  production \(base)/production/verifyReceipt   sandbox \(base)/sandbox/verifyReceipt
          Server API     production \(base)/production                 sandbox \(base)/sandbox
          bundle id \(state.bundleId), \(Plural.of(state.transactions.count, "transaction")) known\
        \(stateDirectory.map { ", state in \($0)" } ?? "")
          notifications \(state.notificationURL.map { "POSTed to \($0.absoluteString)" } ?? "not sent (no --notify-url)")
          shared secret \(state.sharedSecret == nil ? "not set" : "set"), Server API key \(state.serverAPIKey == nil ? "not set (every Server API call gets 401)" : "set")
          Ctrl-C stops it
        """)
        termination.wait()
        simulator.stop()
        // Nothing to save: with --state every change a request made was saved as it happened,
        // under the directory's lock. Saving the records held in memory now would write over
        // what other processes (simulator mint) saved since.
        say("simulator stopped")
        return .ok
    }

    /// Blocks until SIGINT or SIGTERM arrives.
    /// The shared secret: the file's first line, trimmed. Never printed.
    private static func readSecret(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.usage("--shared-secret-file \(path): cannot read the file")
        }
        let secret = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !secret.isEmpty else { throw CommandFailure.usage("--shared-secret-file \(path): the file is empty") }
        return secret
    }

    /// The Server API key from a PEM (public key or `.p8`); the key id defaults to the one in an
    /// `AuthKey_<KID>.p8` file name.
    private static func apiKey(file: String, keyId: String?, issuerId: String?) throws -> ServerAPIKey {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure.usage("--api-public-key \(file): cannot read the file")
        }
        guard let issuerId, !issuerId.isEmpty else { throw CommandFailure.usage("--api-public-key needs --issuer-id") }
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let derived = name.hasPrefix("AuthKey_") ? String(name.dropFirst("AuthKey_".count)) : nil
        guard let kid = keyId ?? derived, !kid.isEmpty else {
            throw CommandFailure.usage("--api-public-key needs --api-key-id (or a file named AuthKey_<KID>.p8)")
        }
        do {
            return ServerAPIKey(publicKey: try ServerAPIKey.publicKey(pem: String(decoding: data, as: UTF8.self)), keyId: kid, issuerId: issuerId)
        } catch {
            throw CommandFailure.usage("--api-public-key \(file): \(CommandFailure.from(error).message)")
        }
    }

    /// Prints and flushes at once (standard output may be a pipe a script is reading).
    private static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// SIGINT and SIGTERM, caught from the moment this is made until `wait()` returns.
final class TerminationSignal {
    private let done = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let done = self.done
            source.setEventHandler { done.signal() }
            source.resume()
            // Ignored only once the source listens, so no signal falls between the two.
            signal(number, SIG_IGN)
            sources.append(source)
        }
    }

    func wait() {
        done.wait()
        for source in sources { source.cancel() }
    }
}
