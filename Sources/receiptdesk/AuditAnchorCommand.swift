import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk audit anchor --key FILE [--to FILE]`: signs the verified head of the audit chain
/// with a private key the database never holds and prints the line, or appends it to an
/// anchors file (O_APPEND, fsync). `audit anchor --new-key FILE` writes a fresh P-256 key
/// (mode 0600, never over an existing file) and prints its public key.
enum AuditAnchorCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let keyPath = try args.value("--key")
        let newKeyPath = try args.value("--new-key")
        let toPath = try args.value("--to")
        _ = try args.finish(maxPositionals: 0)
        if let newKeyPath {
            guard keyPath == nil, toPath == nil else { throw CommandFailure.usage("--new-key makes a key and anchors nothing: it goes alone") }
            return try makeKey(newKeyPath)
        }
        guard let keyPath else { throw CommandFailure.usage("audit anchor needs --key FILE (a PEM private key kept away from the database; make one with --new-key FILE)") }
        let key = try readKey(keyPath)
        let ledger = try options.openLedgerForReading()
        let chain = try AuditLog.verify(ledger.database)
        if let problem = chain.problem {
            throw CommandFailure(status: .verificationFailed, message: "the audit log is broken (\(problem)): no anchor taken")
        }
        guard let head = chain.head else { throw CommandFailure.badInput("the audit log is empty: nothing to anchor yet") }
        var location = ledger.database.location
        if !PostgresDatabase.isURL(options.databasePath) && !location.hasPrefix("/") {
            location = FileManager.default.currentDirectoryPath + "/" + location  // the line names the file wherever it is read
        }
        let line = try AuditAnchorLine.sign(location: location, anchor: head, takenAt: Date(), key: key)
        guard let toPath else {
            print(line.text)
            return .ok
        }
        try append(line.text + "\n", to: toPath)
        if !options.json { print("anchored entry \(head.seq) to \(toPath)") } else { print(JSONValue.object([("line", .string(line.text))]).serialized()) }
        return .ok
    }

    /// The private key in `path`; its content never appears in a message.
    static func readKey(_ path: String) throws -> PrivateKey {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure.badInput("--key \(path): cannot read it") }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            printError("warning: --key \(path) can be read by others (mode \(String(status.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        do {
            return try PrivateKey.fromPEM(String(decoding: data, as: UTF8.self))
        } catch {
            throw CommandFailure.badInput("--key \(path): not a PEM private key")
        }
    }

    static func makeKey(_ path: String) throws -> ExitStatus {
        let key = try PrivateKey.generateP256()
        let pem = try key.pkcs8PEM()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let why = errno == EEXIST ? "it exists, and a key is never overwritten" : String(cString: strerror(errno))
            throw CommandFailure.badInput("--new-key \(path): \(why)")
        }
        defer { close(descriptor) }
        try write(descriptor, pem, path: path)
        let publicKey = try key.publicKey()
        print(publicKey.pem, terminator: "")
        printError("wrote a new P-256 private key to \(path) (mode 0600; keep it off the database's machine if you can). Its public key is above (key id \(publicKey.keyID)): save it for audit --verify --public-key")
        return .ok
    }

    /// Appends `text` to `path` (created 0644 when missing) with O_APPEND, then fsyncs.
    static func append(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CommandFailure.badInput("--to \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try write(descriptor, text, path: path)
    }

    private static func write(_ descriptor: Int32, _ text: String, path: String) throws {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw CommandFailure.badInput("\(path): write failed: \(String(cString: strerror(errno)))") }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw CommandFailure.badInput("\(path): fsync failed: \(String(cString: strerror(errno)))") }
    }
}
